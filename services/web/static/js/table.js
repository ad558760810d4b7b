// A table: live (following the stream) or a replay position (?at=N, a link to share); the server decides which
// cards a spectator sees, this page draws what it is sent.
import {follow, get, userNames} from "./api.js";
import {balutEl, balutScore} from "./balut.js";
import {backEl, cardEl, fill, h, suitName} from "./cards.js";
import {onChange, setUp, t} from "./i18n.js";
import {joined, say, who} from "./bidi.js";
import {barEl, curveEl, dealEvaluation} from "./evaluation.js";
import "./words_watch.js";

const main = document.getElementById("main");
const params = new URLSearchParams(location.search);
const id = params.get("id");
let current = null, nameOf = () => undefined, mode = "live", liveState = "live";
let last = 0, deals = [], timer = null;
let championshipName = null;         // the championship the table belongs to, once asked    // replay: the last visible version, the deals, the play timer
let evaluation = null;               // the shown deal's evaluation (GET …/evaluation), asked again while it grows
let evalTimer = null;
const EVAL_MS = 3000;

const SEAT_PLACE = ["south", "east", "north", "west"];   // seat 0 at the bottom; play goes round to the right

function bidText(b) {
  if (b.bid === "hokum") return `${t("hokum")} ${suitName(b.suit)}`;
  return t(b.bid);
}

function contractText(c) {
  if (!c) return "—";
  const kind = c.ashkal ? t("ashkal") : t(c.type);
  const rest = [c.multiplier > 1 ? `×${c.multiplier}` : "", c.gahwa ? t("gahwa") : "", c.closed ? t("closed") : ""].filter(Boolean);
  return [[kind, c.type === "hokum" && c.suit ? suitName(c.suit) : ""].filter(Boolean).join(" "),
          ` · ${t("buyer")}: `, seatWho(c.buyer), rest.length ? ` ${rest.join(" ")}` : ""];
}

function seatName(seat) {
  const user = current && nameOf(current.seats[seat]);
  return `${user?.name ?? `${t("seat")} ${seat + 1}`}`;
}

// A seat's player, isolated: a Latin name with digits keeps its order in an Arabic sentence.
const seatWho = seat => who(seatName(seat));

// A team as people call it: its two players (seats 0 and 2, 1 and 3).
const teamName = team => say("team_of_players", {a: seatName(team), b: seatName(team + 2)});

// The page's title: who plays (and the championship, linked, when the table is one of its matches).
function titleEl(v) {
  const sides = v.game === "balut" ? joined(v.seats.map((_, s) => seatName(s)), " · ")
    : [teamName(0), ` ${t("versus")} `, teamName(1)];
  const cid = v.terms?.championship_id;
  return [h("h1", {id: "title", title: id}, sides),
    cid ? h("p", {class: "hint"}, h("a", {href: `/watch/championship.html?id=${encodeURIComponent(cid)}`, id: "championship-link"},
      championshipName ? who(championshipName) : t("championship_page")), v.terms.match_id ? ` · ${t("match_word")} ${v.terms.match_id}` : "") : null];
}

// A finished game: who won it, and by what score.
function endEl(v) {
  if (v.phase !== "ended") return "";
  return v.winner === null || v.winner === undefined ? ` · ${t("ended")}: ${t("nobody_won")}`
    : [" · ", say("won_by", {team: teamName(v.winner)})];
}

function seatEl(deal, seat) {
  const hand = deal.hands ? deal.hands[seat].map(cardEl)
    : Array.from({length: deal.hand_sizes[seat]}, backEl);
  const marks = [deal.dealer === seat ? t("dealer") : "", deal.turn === seat ? t("to_play") : ""].filter(Boolean);
  return h("section", {class: `seat ${SEAT_PLACE[seat]}${deal.turn === seat ? " turn" : ""}`, "data-seat": seat},
    h("div", {class: "who"}, h("strong", {}, seatWho(seat)),
      marks.length ? h("span", {class: "marks"}, ` (${marks.join(", ")})`) : null),
    h("div", {class: "hand", "aria-label": `${t("seat")} ${seat + 1}`}, hand));
}

function boardEl(deal) {
  const onTable = new Map(deal.trick.map(p => [p.seat, p.card]));
  return h("div", {class: "board", id: "board"},
    [0, 1, 2, 3].map(s => seatEl(deal, s)),
    h("div", {class: "trick", id: "trick", "aria-label": t("trick")}, [0, 1, 2, 3].map(s =>
      h("div", {class: `slot ${SEAT_PLACE[s]}`}, onTable.has(s) ? cardEl(onTable.get(s)) : null))),
    deal.faceup && deal.faceup_taken_by === null ? h("div", {class: "faceup"}, `${t("faceup")}: `, cardEl(deal.faceup)) : null);
}

function panelEl(v, deal) {
  const r = deal.result;
  return h("div", {class: "panel"},
    h("dl", {class: "facts"},
      h("dt", {}, t("contract")), h("dd", {id: "contract"}, contractText(deal.contract)),
      h("dt", {}, t("tricks_won")), h("dd", {id: "tricks-won"}, `${deal.tricks_won[0]} – ${deal.tricks_won[1]}`),
      h("dt", {}, t("card_points")), h("dd", {}, `${deal.points[0]} – ${deal.points[1]}`),
      deal.baloot.length ? [h("dt", {}, t("baloot")), h("dd", {}, joined(deal.baloot.map(seatName), ", "))] : null,
      r ? [h("dt", {}, t("game_points")), h("dd", {id: "deal-result"}, `${r.game_points[0]} – ${r.game_points[1]}`
            + (r.kaboot ? ` · ${t("kaboot")}` : "") + (r.failed ? ` · ${t("failed")}` : ""))] : null),
    h("h3", {}, t("bidding")),
    h("ol", {class: "bids", id: "bids"}, deal.bids.map(b => h("li", {}, seatWho(b.seat), `: ${bidText(b)}`)),
      deal.doubles.map(d => h("li", {}, seatWho(d.seat), `: ${t(d.call)}${d.closed ? ` (${t("closed")})` : ""}`))),
    deal.declarations.length ? [h("h3", {}, t("projects")), h("ul", {id: "projects"}, deal.declarations.map(d =>
      h("li", {}, seatWho(d.seat), `: ${d.kinds.map(k => t(`project_${k}`)).join(", ")} `, (d.cards || []).flat().map(cardEl))))] : null,
    h("h3", {}, t("tricks")),
    h("ol", {class: "tricks-list", id: "tricks"}, deal.tricks.map(tr => h("li", {"data-leader": tr.leader, "data-winner": tr.winner},
      h("span", {class: "led"}, seatWho(tr.leader), ": "),
      tr.cards.map(p => h("span", {class: `played${p.seat === tr.winner ? " won" : ""}`, title: seatName(p.seat)}, cardEl(p.card))),
      h("span", {class: "trick-winner"}, ` ${document.documentElement.dir === "rtl" ? "←" : "→"} `, seatWho(tr.winner))))));
}

// The game's end, where the board would be empty: the final score and who won, each deal's result, the last
// trick and who took it.
function gameEndEl(v, deal) {
  const last = deal?.tricks.at(-1);
  const arrow = document.documentElement.dir === "rtl" ? "←" : "→";
  return h("section", {class: "replay-end", id: "game-end"},
    h("h2", {}, t("final_position")),
    h("div", {class: "final", id: "final-score", "data-scores": v.scores.join(",")}, [0, 1].map(k =>
      h("p", {class: `final-team${v.winner === k ? " won" : ""}`, "data-team": k},
        h("span", {class: "final-name"}, teamName(k)), h("span", {class: "final-points"}, String(v.scores[k]))))),
    h("p", {id: "winner"}, v.winner === null || v.winner === undefined ? t("nobody_won") : say("won_by", {team: teamName(v.winner)})),
    deals.length ? h("table", {class: "list", id: "deal-results"},
      h("thead", {}, h("tr", {}, h("th", {}, t("deal")), h("th", {}, t("contract")), h("th", {}, teamName(0)), h("th", {}, teamName(1)))),
      h("tbody", {}, deals.map(d => h("tr", {"data-deal": d.deal_no, "data-points": (d.game_points ?? []).join(",")},
        h("td", {}, h("a", {href: `/watch/table.html?id=${encodeURIComponent(id)}&at=${d.first_version}`}, String(d.deal_no))),
        h("td", {}, d.contract ? contractText(d.contract) : t("all_passed")),
        h("td", {}, d.game_points ? String(d.game_points[0]) : "—"), h("td", {}, d.game_points ? String(d.game_points[1]) : "—")))))
      : null,
    last ? h("div", {class: "last-trick", id: "last-trick"}, h("strong", {}, `${t("last_trick")}: `),
      last.cards.map(p => h("span", {class: `played${p.seat === last.winner ? " won" : ""}`, title: seatName(p.seat)}, cardEl(p.card))),
      ` ${arrow} `, seatWho(last.winner)) : null);
}

function controlsEl(v) {
  if (mode === "live") {
    return h("div", {class: "controls"},
      h("span", {class: `state ${liveState}`, id: "live-state"}, t(liveState)),
      h("a", {href: `/watch/table.html?id=${id}&at=${v.version}`, id: "to-replay"}, t("replay")));
  }
  const deal = deals.findLast(d => d.first_version <= v.version);
  const cardGame = v.game !== "balut";     // the dice game has no deals nor tricks: stepping only
  return h("div", {class: "controls", id: "controls"},
    h("button", {type: "button", id: "prev", disabled: v.version <= 1, onclick: () => show(v.version - 1)}, t("previous")),
    h("button", {type: "button", id: "playpause", onclick: playPause}, timer ? t("pause") : t("play")),
    h("button", {type: "button", id: "next", disabled: v.version >= last, onclick: () => show(v.version + 1)}, t("next")),
    h("span", {id: "position"}, `${t("position")} ${v.version} ${t("of")} ${last}`),
    cardGame ? h("label", {}, `${t("deal")} `, h("select", {id: "deal", onchange: e => show(deals[e.target.value - 1].first_version)},
      deals.map(d => h("option", {value: d.deal_no, selected: deal?.deal_no === d.deal_no}, String(d.deal_no))))) : null,
    cardGame ? h("form", {id: "jump", onsubmit: e => { e.preventDefault(); jumpToTrick(Number(e.target.elements.trick.value)); }},
      h("label", {for: "trick-no"}, t("go_trick")),
      h("input", {id: "trick-no", name: "trick", type: "number", min: 1, max: 8, value: v.deal?.tricks.length || 1}),
      h("button", {type: "submit"}, t("go"))) : null,
    cardGame ? null : h("form", {id: "jump-round", onsubmit: e => { e.preventDefault(); jumpToRound(Number(e.target.elements.round.value)); }},
      h("label", {for: "round-no"}, t("go_round")),
      h("input", {id: "round-no", name: "round", type: "number", min: 1, value: v.round || 1}),
      h("button", {type: "submit"}, t("go"))),
    h("a", {href: location.href, id: "share"}, t("share")),
    deal?.finished ? h("a", {href: `/watch/audit.html?table=${id}&deal=${deal.deal_no}`, id: "audit"}, t("audit")) : null,
    deal?.finished ? h("a", {href: `/watch/review.html?table=${id}&deal=${deal.deal_no}`, id: "review"}, t("review_link")) : null,
    h("a", {href: `/watch/table.html?id=${id}`}, t("back_to_live")));
}

function render() {
  const v = current;
  if (!v) return;
  if (v.game === "balut") {
    fill(main, ...titleEl(v), h("p", {class: "facts", id: "score"}, balutScore(v)),
                         controlsEl(v), balutEl(v, seatName));
    return;
  }
  const deal = v.deal;
  fill(main, 
    ...titleEl(v),
    h("p", {class: "facts", id: "score"}, `${t("deal")} ${v.deal_no} · `, teamName(0), ` ${v.scores[0]} – ${v.scores[1]} `, teamName(1),
      ` (${t("target")} ${v.target})`, endEl(v)),
    controlsEl(v),
    evaluationEl(v),
    v.phase === "ended" ? h("div", {class: "game", "data-version": v.version, id: "game"}, gameEndEl(v, deal),
                            deal ? panelEl(v, deal) : null)
      : deal ? h("div", {class: "game", "data-version": v.version, id: "game"}, boardEl(deal), panelEl(v, deal)) : null);
}

// The evaluation bar (the position shown: the last value at or before it) and, in a replay, the deal's curve.
function evaluationEl(v) {
  const deal = v.deal;
  if (!deal?.contract || !evaluation || evaluation.deal_no !== v.deal_no || v.phase === "ended") return null;
  const shown = evaluation.points.filter(p => p.version <= v.version).at(-1) ?? null;
  return h("section", {class: "evaluation", id: "evaluation", "aria-label": t("eval_title")},
    barEl(shown?.value ?? null, evaluation.basis, teamName, deal.contract.buyer % 2),
    mode === "replay" ? curveEl(evaluation, {at: shown?.version ?? null, pick: show, teamName}) : null);
}

// Ask for the shown deal's evaluation, and again while it is being worked on (live: while the deal is played).
async function askEvaluation() {
  clearTimeout(evalTimer);
  const v = current;
  if (!v || v.game === "balut" || !v.deal?.contract) return;
  const got = await dealEvaluation(id, v.deal_no).catch(() => null);
  if (got && current?.deal_no === got.deal_no) { evaluation = got; render(); }
  if (got && (mode === "live" || got.points.length < got.positions)) evalTimer = setTimeout(askEvaluation, EVAL_MS);
}

async function showView(v) {
  if (!current || current.seats.join() !== v.seats.join()) nameOf = await userNames(v.seats);
  const cid = v.terms?.championship_id;
  if (cid && championshipName === null) {
    championshipName = (await get(`/championships/${encodeURIComponent(cid)}`).catch(() => null))?.name ?? t("championship_page");
  }
  // A game that ends while followed live: its deals, for the end's table of results.
  if (v.phase === "ended" && v.game !== "balut" && !deals.length) deals = await get(`/tables/${id}/deals`).catch(() => []);
  const ask = v.game !== "balut" && v.deal?.contract && (evaluation?.deal_no !== v.deal_no || !evalTimer);
  current = v;
  render();
  if (ask) askEvaluation();
}

async function show(version) {
  version = Math.max(1, Math.min(version, last));
  const url = new URL(location.href);
  url.searchParams.set("at", version);
  history.replaceState(null, "", url);
  await showView(await get(`/tables/${id}/state?at=${version}`));
}

// The first position of the current deal at which `k` tricks are complete (tricks taken only grow in a deal).
async function jumpToTrick(k) {
  const index = deals.findLastIndex(d => d.first_version <= current.version);
  if (index < 0) return;
  let lo = deals[index].first_version, hi = index + 1 < deals.length ? deals[index + 1].first_version - 1 : last;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const v = await get(`/tables/${id}/state?at=${mid}`);
    if ((v.deal?.tricks.length ?? 0) >= k) hi = mid; else lo = mid + 1;
  }
  await show(lo);
}

// The dice game: the first position of round `k` (its first turn started; rounds only grow in a game).
async function jumpToRound(k) {
  let lo = 1, hi = last;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if ((await get(`/tables/${id}/state?at=${mid}`)).round >= k) hi = mid; else lo = mid + 1;
  }
  await show(lo);
}

function playPause() {
  if (timer) { clearInterval(timer); timer = null; render(); return; }
  timer = setInterval(() => {
    if (current.version >= last) { clearInterval(timer); timer = null; render(); return; }
    show(current.version + 1);
  }, 800);
  render();
}

async function load() {
  const now = await get(`/tables/${id}/view`);
  const at = params.get("at");
  if (at === null && now.status !== "finished") {
    await showView(now);
    follow(`/tables/${id}/live`, (event, data) => { if (event === "view") showView(JSON.parse(data)); },
           state => { liveState = state; render(); }, now.version - 1);
    return;
  }
  mode = "replay";
  last = now.version;
  deals = now.game === "balut" ? [] : await get(`/tables/${id}/deals`);
  await show(at === null ? last : Number(at));
}

setUp();
onChange(render);
load().catch(error => fill(main, error.status === 404
  ? [h("h1", {id: "not-found"}, t("table_not_found")), h("p", {}, t("table_not_found_hint")),
     h("p", {}, h("a", {href: "/watch/"}, t("home")))]
  : h("p", {class: "error", role: "alert"}, `${t("error")}: ${error.message}`)));
