// The referee's desk (/referee/): the calls at the tables I referee, the open ones oldest first, each claimed
// once (the others see it is taken); a call opened (?table=T&deal=N&call=C): its deal step by step with every
// hand, who led and who wins each trick, the bids, the calls with the engine's verdict on an accusation and
// the rule's text, the rulings and signed receipts, and the ruling form (a reason always). Every action is one
// API request, refused in place in the server's words.
import {get, send, signedIn} from "./api.js";
import {cardEl, fill, h, suitName} from "./cards.js";
import {locale, onChange, setUp, t, tOr} from "./i18n.js";
import "./words_play.js";
import "./words_referee.js";

const main = document.getElementById("main");
const params = new URLSearchParams(location.search);
const tableId = params.get("table"), dealNo = Number(params.get("deal") || 0), callNo = Number(params.get("call") || 0);
const enc = encodeURIComponent;
let me = null, queue = null, desk = null, step = 0, showRuled = false, refusal = null, notice = null;
let toRuling = false;       // a ruling was just made: the desk shows its step once it is read again
let form = {ruling: "", reason: "", team: 0, winner: 0, seat: 0, level: "normal"};
const when = iso => new Date(iso).toLocaleString(locale(), {dateStyle: "medium", timeStyle: "medium"});
// A moment, isolated from the words around it (a Latin name or note next to an Arabic date would reorder both).
const timeEl = iso => h("bdi", {}, h("time", {datetime: iso}, when(iso)));
// A sentence with each value in a <bdi> of its own, so that names and notes keep their direction.
function tb(key, values) {
  const text = t(key, Object.fromEntries(Object.keys(values).map(k => [k, `\u0000${k}\u0000`])));
  return text.split("\u0000").map((part, i) => i % 2 ? typeof values[part] === "string" ? h("bdi", {}, values[part])
    : values[part] : part);
}
// The players in the reader's language (a bot, "bot-<level>", named by its level as every page names it), and
// a private table's sides from them (a championship's are its teams' names).
const BOT = /^bot-(\w+)$/;
function localised(x) {
  const names = x.names ?? x.players;        // as the server named them, kept for the other language
  const players = names.map((name, i) => {
    const bot = BOT.exec(x.seats?.[i] ?? "");
    return bot ? t("bot_of_level", {level: t(`level_${bot[1]}`)}) : name;
  });
  const sides = x.championship_name || !x.sides?.length ? x.sides        // the dice game: no sides
    : [0, 1].map(side => players.filter((_, i) => i % 2 === side));
  return {...x, names, players, sides};
}
// A side: its team's name, or a private table's two players, each name isolated, in the page's direction.
const sideEl = side => typeof side === "string" ? h("bdi", {}, side)
  : h("span", {dir: document.documentElement.dir || "ltr"}, side.flatMap((name, i) => [i ? " & " : "", h("bdi", {}, name)]));
// Which match a table is: its championship and round, and who plays whom (the two teams' names), the players
// under it; a private table: its two pairs.
function matchEl(x) {
  const title = x.championship_name
    ? [h("bdi", {}, x.championship_name), x.round ? ` · ${t("round_n", {n: x.round})}` : ""] : t("private_table");
  return [h("div", {class: "match-title"}, title),
    x.sides?.length === 2 ? h("div", {class: "match-sides"}, tb("side_against", {a: sideEl(x.sides[0]), b: sideEl(x.sides[1])})) : null,
    h("small", {class: "match-players"}, x.players.flatMap((name, i) => [i ? " · " : "", h("bdi", {}, name)]))];
}
const PLACES = ["south", "east", "north", "west"];

async function act(what, after) {
  refusal = null; notice = null;
  try {
    notice = await what();
  } catch (error) {
    refusal = {rule: error.rule ?? "", text: error.message};
  }
  await after();
}

function noticeEl() {
  if (refusal) return h("p", {class: "error", role: "alert", id: "refusal", "data-rule": refusal.rule},
    refusal.rule ? h("code", {}, refusal.rule) : null, refusal.rule ? " — " : "", refusal.text);
  return notice ? h("p", {class: "ok", role: "status", id: "notice"}, notice) : null;
}

// ---- the queue ----

function claimButton(c) {
  return h("button", {type: "button", class: "claim", "data-claim": `${c.table_id}/${c.call}`,
                      onclick: () => act(async () => {
                        await send("POST", `/tables/${enc(c.table_id)}/calls/${c.call}/claim`, {command_id: crypto.randomUUID()});
                        return t("claimed_done");
                      }, loadQueue)}, t("claim"));
}

function queueEl() {
  const rows = queue.filter(c => showRuled || c.status !== "ruled");
  const heads = [t("called_at"), t("match_col"), t("deal"), t("caller"), t("why"), t("note"), t("status")];
  // Each cell says what it is (data-label): on a phone a row is a card of labelled lines, not eight columns.
  const cells = c => [
    timeEl(c.called_at), matchEl(c), String(c.deal_no), h("bdi", {}, c.caller_name),
    [t(`reason_${c.reason}`), c.index !== null ? ` (${t("action_n", {n: c.index})})` : ""],
    c.note ? h("bdi", {}, c.note) : "—",
    c.status === "claimed" ? tb("taken_by", {name: c.claimed_by_name}) : c.status === "ruled"
      ? [t(`ruling_${c.ruling}`), " — ", h("bdi", {}, c.ruling_reason)] : t("call_open"),
  ].map((content, i) => h("td", {"data-label": heads[i], class: ["when", "match-of", "deal", "caller", "why", "note", "status"][i]}, content));
  return [h("h1", {}, t("desk")), noticeEl(),
    h("p", {}, h("label", {}, h("input", {type: "checkbox", id: "show-ruled", checked: showRuled,
                                           onchange: e => { showRuled = e.target.checked; loadQueue(); }}), " ", t("show_ruled"))),
    h("h2", {}, t("queue")),
    rows.length ? h("table", {class: "list", id: "queue"},
      h("thead", {}, h("tr", {}, [...heads, ""].map(x => h("th", {}, x)))),
      h("tbody", {}, rows.map(c => h("tr", {"data-call": `${c.table_id}/${c.call}`, "data-status": c.status},
        cells(c),
        h("td", {class: "controls"}, c.status === "open" ? claimButton(c) : null,
          h("a", {class: "button", href: `/referee/?table=${enc(c.table_id)}&deal=${c.deal_no}&call=${c.call}`}, t("open_call")))))))
      : h("p", {id: "queue-empty"}, t("queue_empty"))];
}

// ---- one deal, step by step ----

// A step in the reader's language, from its kind, seat and value (the server's English is its title).
function stepText(s) {
  const who = s.seat !== null ? h("bdi", {}, desk.players[s.seat]) : "";
  switch (s.kind) {
    case "bid": { const [bid, suit] = s.value.split(" "); return [who, `: ${t(bid)}${suit ? ` ${suitName(suit)}` : ""}`]; }
    case "double": return [who, `: ${t(s.value === "pass" ? "no_double" : s.value)}`];
    case "declare": return [tb("step_declares", {name: desk.players[s.seat]}), " ", s.value.split(" ").map(cardEl)];
    case "play": return [tb("step_plays", {name: desk.players[s.seat]}), " ", cardEl(s.value),
                         s.words ? [" · ", h("strong", {class: "bad"}, t("step_offence")), " ", h("span", {class: "offence", "data-rule": s.words}, tOr(`offence_${s.words}`, s.words))] : ""];
    case "sawa": return [who, `: ${t("claim_sawa")} — ${t(s.value === "holds" ? "step_holds" : "step_false")}`];
    case "qayd": return [who, `: ${t("qayd")} (${t("action_n", {n: s.value})})`];
    case "call": return [who, `: ${t("call_referee")} — ${t(`reason_${s.value}`)}${s.words ? ` (${t("action_n", {n: s.words})})` : ""}`];
    case "claimed": return tb("step_claimed", {n: s.value, name: s.words});
    case "ruling": return [`${t("ruled")}: ${t(`ruling_${s.value}`)} — `, h("bdi", {}, s.words)];
    default: return t(`step_${s.kind}`);
  }
}

function stepEl(s) {
  const d = s.deal;
  const onTable = new Map(d.trick.map(p => [p.seat, p.card]));
  const leader = d.trick.length ? d.trick[0].seat : null;
  const seatEl = seat => h("section", {class: `seat ${PLACES[seat]}${d.turn === seat ? " turn" : ""}`, "data-seat": seat},
    h("div", {class: "who"}, h("strong", {}, desk.players[seat]),
      [d.dealer === seat ? t("dealer") : "", d.turn === seat ? t("to_act") : "", leader === seat ? t("led") : "",
       d.winning === seat ? t("wins_trick") : ""].filter(Boolean).map(m => h("span", {class: "mark"}, ` · ${m}`))),
    h("div", {class: "hand"}, (d.hands?.[seat] ?? []).map(cardEl)));
  return h("div", {class: "desk-step", id: "step", "data-step": step, "data-version": s.version},
    h("p", {class: "step-text", id: "step-text", title: s.text}, h("strong", {}, t("step", {n: step + 1, of: desk.steps.length})),
      " · ", h("span", {class: "step-what"}, stepText(s)), " · ", timeEl(s.at)),
    h("div", {class: "board", id: "board"}, [0, 1, 2, 3].map(seatEl),
      h("div", {class: "trick", id: "trick"}, [0, 1, 2, 3].map(seat =>
        h("div", {class: `slot ${PLACES[seat]}`}, onTable.has(seat) ? cardEl(onTable.get(seat)) : null)),
        // In the middle of the table, where no hand is (a corner of the board covers a hand on a phone).
        d.faceup && d.faceup_taken_by === null ? h("div", {class: "faceup", id: "desk-faceup"}, t("faceup"), cardEl(d.faceup)) : null)),
    h("dl", {class: "facts"},
      h("dt", {}, t("contract")), h("dd", {id: "desk-contract"}, d.contract ? [d.contract.ashkal ? t("ashkal") : t(d.contract.type),
        d.contract.suit ? ` ${suitName(d.contract.suit)}` : "", ` · ${desk.players[d.contract.buyer]}`,
        d.contract.multiplier > 1 ? ` ×${d.contract.multiplier}` : ""] : "—"),
      h("dt", {}, t("points")), h("dd", {}, `${d.points[0]} – ${d.points[1]}`),
      h("dt", {}, t("bids_and_doubles")), h("dd", {}, [...d.bids.map(b => `${desk.players[b.seat]}: ${b.bid === "hokum" && b.suit
        ? `${t("hokum")} ${suitName(b.suit)}` : t(b.bid)}`), ...d.doubles.map(x => `${desk.players[x.seat]}: ${t(x.call === "pass" ? "no_double" : x.call)}`)]
        .join(" · ") || "—")),
    d.tricks.length ? h("ol", {class: "tricks", id: "tricks"}, d.tricks.map(tr => h("li", {},
      `${desk.players[tr.leader]} ${t("led")}: `, tr.cards.map(p => h("span", {class: "played"}, cardEl(p.card))),
      ` → ${desk.players[tr.winner]}`))) : null);
}

function stepControls() {
  const go = n => { step = Math.max(0, Math.min(desk.steps.length - 1, n)); keepStep(); render(); };
  return h("div", {class: "controls step-controls"},
    h("button", {type: "button", id: "step-first", onclick: () => go(0)}, t("first")),
    h("button", {type: "button", id: "step-prev", onclick: () => go(step - 1)}, t("previous")),
    h("input", {type: "range", id: "step-range", min: 0, max: desk.steps.length - 1, value: step,
                "aria-label": t("timeline"), oninput: e => go(Number(e.target.value))}),
    h("button", {type: "button", id: "step-next", onclick: () => go(step + 1)}, t("next")),
    h("button", {type: "button", id: "step-last", onclick: () => go(desk.steps.length - 1)}, t("last")));
}

// The engine's words say "seat 2": here they say who.
const named = text => text.replace(/\bseat (\d)\b/g, (_, seat) => desk.players[Number(seat)] ?? _);

// A rule's section and text in the reader's language (the server's English where the page has no words).
const SECTIONS = {"§5 Play": "rule_section_play", "§9 Strict and recorded tables, Qayd (قيد)": "rule_section_qayd"};
const ruleEl = (section, rule, text) => h("p", {class: "rule-text"},
  h("strong", {}, t("rule_of", {section: tOr(SECTIONS[section] ?? "", section)})), " ", tOr(`rule_text_${rule}`, text));

function verdictEl(c) {
  if (c.reason !== "qayd") return null;
  if (!c.verdict) return h("p", {class: "bad verdict"}, `${t("cannot_rule")}: `, h("bdi", {}, named(c.verdict_problem)));
  const v = c.verdict;
  return h("div", {class: `verdict ${v.proven ? "ok" : "bad"}`, id: `verdict-${c.call}`},
    h("p", {}, h("strong", {}, `${t("verdict")}: ${v.proven ? t("proven") : t("unfounded")}`),
      v.rule ? [" · ", h("span", {class: "offence", "data-rule": v.rule}, tOr(`offence_${v.rule}`, v.rule))] : "", " — ",
      tb(v.proven ? "verdict_proven" : "verdict_unfounded", {name: desk.players[v.accused], n: String(v.index)})),
    h("div", {class: "engine-words"}, h("small", {}, t("engine_words")), h("p", {dir: "ltr"}, named(v.message))),
    c.rule_text ? ruleEl(c.rule_section, v.rule, c.rule_text) : null,
    ruleEl(desk.qayd_section, "qayd", desk.qayd_text));
}

function callEl(c) {
  return h("li", {"data-call": c.call, "data-status": c.status, class: c.call === callNo ? "current" : ""},
    h("p", {}, h("strong", {}, tb("call_by", {n: String(c.call), name: c.caller_name})), " ", t(`reason_${c.reason}`),
      c.index !== null ? ` (${t("action_n", {n: c.index})})` : "", " · ", timeEl(c.called_at), " · ",
      c.status === "claimed" ? tb("taken_by", {name: c.claimed_by_name}) : t(`call_${c.status}`)),
    c.note ? h("blockquote", {dir: "auto"}, c.note) : null, verdictEl(c),
    c.ruling ? h("p", {class: "ruling"}, `${t("ruled")}: ${t(`ruling_${c.ruling}`)} — `, h("bdi", {}, c.ruling_reason)) : null);
}

function rulingChoices(c) {
  const kinds = [c?.reason === "qayd" ? "uphold" : null, c ? "reject" : null, "replay_deal", "annul_deal", "award_deal",
                 "end_game", "hand_seat_to_bot"].filter(Boolean);
  if (!kinds.includes(form.ruling)) form.ruling = kinds[0];
  return kinds;
}

function rulingBody() {
  const reason = form.reason.trim();
  switch (form.ruling) {
    case "replay_deal": case "annul_deal": return {type: "annul_deal", reason, replay: form.ruling === "replay_deal"};
    case "award_deal": return {type: "award_deal", team: Number(form.team), reason};
    case "end_game": return {type: "end_game", reason, winner: Number(form.winner)};
    case "hand_seat_to_bot": return {type: "hand_seat_to_bot", reason, seat: Number(form.seat), level: form.level};
    default: return {type: form.ruling, reason};
  }
}

function teamOptions(key) {
  return [0, 1].map(team => h("option", {value: team, selected: Number(form[key]) === team},
    desk.championship_name ? desk.sides[team] : t("team_of", {a: desk.players[team], b: desk.players[team + 2]})));
}

function rulingFormEl(c) {
  if (c && c.status === "ruled") return null;
  const kinds = rulingChoices(c);
  const field = (label, id, control) => h("p", {class: "field"}, h("label", {for: id}, label), control);
  const extra = {
    award_deal: field(t("team"), "ruling-team", h("select", {id: "ruling-team", onchange: e => { form.team = e.target.value; }}, teamOptions("team"))),
    end_game: field(t("winner"), "ruling-winner", h("select", {id: "ruling-winner", onchange: e => { form.winner = e.target.value; }}, teamOptions("winner"))),
    hand_seat_to_bot: [field(t("seat_col"), "ruling-seat", h("select", {id: "ruling-seat", onchange: e => { form.seat = e.target.value; }},
      [0, 1, 2, 3].map(s => h("option", {value: s, selected: Number(form.seat) === s}, desk.players[s])))),
      field(t("level"), "ruling-level", h("select", {id: "ruling-level", onchange: e => { form.level = e.target.value; }},
        ["easy", "normal", "hard", "expert"].map(l => h("option", {value: l, selected: form.level === l}, t(`level_${l}`)))))],
  }[form.ruling];
  return h("form", {class: "ruling-form", id: "ruling-form", onsubmit: e => {
    e.preventDefault();
    act(async () => {
      await send("POST", `/tables/${enc(tableId)}/rulings`, {command_id: crypto.randomUUID(), ruling: rulingBody(),
                                                            ...(c ? {call: c.call} : {})});
      form.reason = "";
      toRuling = true;
      return t("ruled_done");
    }, loadDesk);
  }},
    h("h2", {}, t("rule_now")),
    field(t("ruling"), "ruling-kind", h("select", {id: "ruling-kind", onchange: e => { form.ruling = e.target.value; render(); }},
      kinds.map(k => h("option", {value: k, selected: form.ruling === k}, t(`ruling_${k}`))))),
    extra ?? null,
    field(t("ruling_reason_label"), "ruling-reason", h("textarea", {id: "ruling-reason", required: true, maxlength: 500, rows: 3,
                                                                    oninput: e => { form.reason = e.target.value; }}, form.reason)),
    h("div", {class: "controls"}, h("button", {type: "submit", class: "primary", id: "ruling-send"}, t("send_ruling"))));
}

function deskEl() {
  const c = desk.calls.find(x => x.call === callNo) ?? null;
  const s = desk.steps[step];
  return [h("p", {}, h("a", {href: "/referee/"}, t("back_to_queue"))),
    h("h1", {id: "desk-match"}, matchEl(desk)),
    h("p", {class: "hint"}, `${t("deal")} ${desk.deal_no} / ${desk.deals} · `,
      h("a", {href: `/watch/audit.html?table=${enc(tableId)}&deal=${desk.deal_no}`}, t("audit_link"))),
    noticeEl(),
    h("div", {class: "desk-layout"},
      h("div", {class: "desk-main"}, h("h2", {}, t("timeline")), stepControls(), s ? stepEl(s) : null),
      h("aside", {class: "desk-side"},
        h("h2", {}, t("calls_here")), desk.calls.length ? h("ol", {class: "calls", id: "desk-calls"}, desk.calls.map(callEl)) : h("p", {}, "—"),
        desk.table_mode === "recorded" ? h("p", {class: "hint"}, t("qayd_window", {n: 30})) : null,
        rulingFormEl(c),
        desk.rulings.length ? [h("h2", {}, t("rulings")), h("ol", {id: "desk-rulings"}, desk.rulings.map(r => h("li", {},
          `${t(`ruling_${r.ruling}`)} — `, h("bdi", {}, r.reason), " · ", h("bdi", {}, r.referee_name), " · ", timeEl(r.at))))] : null,
        desk.receipts.length ? [h("h2", {}, t("receipts")), h("ul", {class: "receipts", id: "desk-receipts"}, desk.receipts.map(r =>
          h("li", {}, t("receipt_kind", {kind: t(`receipt_${r.kind}`), version: r.version}), " · ", h("code", {title: r.signature}, `${r.key_id} ${r.signature.slice(0, 16)}…`))))] : null))];
}

function render() {
  if (!me) return;
  if (tableId && desk) fill(main, ...deskEl());
  else if (queue) fill(main, ...queueEl());
}

async function loadQueue() {
  try {
    queue = (await get(`/referee/queue${showRuled ? "?ruled=true" : ""}`)).map(localised);
  } catch (error) {
    if (error.rule === "not_referee") { fill(main, h("h1", {}, t("desk")), h("p", {id: "not-referee"}, t("not_referee_here"))); return; }
    throw error;
  }
  render();
}

// The step the referee went to is in the address (?step=N, from 1): a reload or a link shows the same one.
function keepStep() {
  const url = new URL(location.href);
  url.searchParams.set("step", String(step + 1));
  history.replaceState(null, "", url);
}

async function loadDesk() {
  const first = desk === null;
  desk = localised(await get(`/tables/${enc(tableId)}/deals/${dealNo}/desk`));
  if (first) {
    // Open on the link's step, else the accused action's, else the last.
    const c = desk.calls.find(x => x.call === callNo);
    const accused = c?.index ?? null;
    const at = accused !== null ? desk.steps.findIndex(s => s.index === accused) : -1;
    const asked = params.has("step") ? Number(params.get("step")) - 1 : -1;    // the link's step, from 1
    step = asked >= 0 && asked < desk.steps.length ? asked : at >= 0 ? at : desk.steps.length - 1;
  } else if (toRuling) {
    // The deal has grown by the ruling and what followed it (the deal cancelled, a seed revealed): the desk
    // shows the ruling just made, not the same index of a longer deal (which put the slider back).
    const ruled = desk.steps.findLastIndex(s => s.kind === "ruling");
    if (ruled >= 0) { step = ruled; keepStep(); }
  }
  toRuling = false;
  step = Math.min(step, desk.steps.length - 1);
  render();
}

async function load() {
  me = await signedIn();
  if (!me) { location.href = `/play/?next=${enc(location.pathname + location.search)}`; return; }
  const account = document.getElementById("account");
  if (account) fill(account, h("span", {class: "me"}, me.name, me.login ? ` (${me.login})` : ""));
  document.title = t("desk_title");
  await (tableId ? loadDesk() : loadQueue());
}

setUp();
onChange(() => {
  document.title = t("desk_title");
  queue = queue?.map(localised) ?? null;
  desk = desk ? localised(desk) : null;
  render();
});
load().catch(error => fill(main, h("p", {class: "error", role: "alert", "data-rule": error.rule ?? ""},
  `${t("error")}: ${error.message}`)));
