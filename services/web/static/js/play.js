// A table to play at (/play/table.html?id=T), drawn from my seat's view and its live stream only: my hand sorted
// by suit and order with the legal cards playable, the bids, doubles, projects, Baloot, Sawa and Qayd the rules
// allow now, the trick with who led it and who is winning it, the score and contract, the turn clock, and every
// refusal in the server's words where it happened. The dice game has its own panel (play_balut.js).
import {follow, get, send, signedIn, userNames, whenSignedOut} from "./api.js";
import {backEl, cardEl, cardLabel, fill, h, suitName} from "./cards.js";
import {listText, onChange, setUp, t} from "./i18n.js";
import {balutKeys, balutPlayEl} from "./play_balut.js";
import {termsEl} from "./terms.js";
import "./words_play.js";
import "./words_referee.js";

const main = document.getElementById("main");
const id = new URLSearchParams(location.search).get("id");
let me = null, v = null, nameOf = () => undefined, liveState = "live";
let refusal = null;          // the server's last refusal of my action: {rule, text}
let busy = false;            // an action of mine is on its way
let announceBaloot = true;   // play a king or queen of trumps that makes Baloot with the announcement
let qayd = null;             // the Qayd dialog's choice: {trick, position}
let calling = null;          // the call-the-referee dialog's choice: {reason, note}
let ticker = null;
let lastDeal = null;         // the deal just over ({deal_no, result}), shown while the next one is bid

const PLACES = ["south", "east", "north", "west"];    // my seat at the bottom; play goes round to the right
const SUITS = ["S", "H", "C", "D"];                   // black, red, black, red
const ORDER = {plain: "ATKQJ987", trump: "J9ATKQ87"};

const place = seat => PLACES[(seat - (v.seat ?? 0) + 4) % 4];
const teamOf = seat => seat % 2;

function seatName(seat) {
  if (seat === v.seat) return t("you");
  const user = nameOf(v.seats[seat]);
  if (v.terms?.bots?.[seat]) return `${t("bot")} (${t(`level_${v.terms.bots[seat]}`)})`;
  return user?.name ?? `${t("seat")} ${seat + 1}`;
}

function sortHand(hand, contract) {
  const trump = contract?.type === "hokum" ? contract.suit : null;
  const suits = trump ? [trump, ...SUITS.filter(s => s !== trump)] : SUITS;
  const rank = card => (card[1] === trump ? ORDER.trump : ORDER.plain).indexOf(card[0]);
  return [...hand].sort((a, b) => suits.indexOf(a[1]) - suits.indexOf(b[1]) || rank(a) - rank(b));
}

function bidText(b) {
  return b.bid === "hokum" && b.suit ? `${t("hokum")} ${suitName(b.suit)}` : t(b.bid);
}

function contractText(c) {
  if (!c) return "—";
  return [c.ashkal ? t("ashkal") : t(c.type), c.type === "hokum" && c.suit ? suitName(c.suit) : "",
          `· ${t("buyer")}: ${seatName(c.buyer)}`, c.multiplier > 1 ? `×${c.multiplier}` : "",
          c.gahwa ? t("gahwa") : "", c.closed ? t("closed") : ""].filter(Boolean).join(" ");
}

// ---- acting ----

async function act(action, path = "commands") {
  if (busy) return;
  busy = true;
  refusal = null;
  render();
  try {
    const body = path === "commands" ? {command_id: crypto.randomUUID(), action, expected_version: v.version}
      : {command_id: crypto.randomUUID(), ...action};
    const answer = await send("POST", `/tables/${encodeURIComponent(id)}/${path}`, body);
    await showView(answer.view);
  } catch (error) {
    refusal = {rule: error.rule ?? "", text: error.message};
  } finally {
    busy = false;
    render();
  }
}

// ---- the board ----

function seatEl(seat) {
  const d = v.deal;
  const mine = seat === v.seat;
  const lastBid = [...d.bids].reverse().find(b => b.seat === seat);
  const marks = [d.dealer === seat ? t("dealer") : null, d.turn === seat ? t("to_play") : null,
                 d.baloot.includes(seat) ? t("baloot") : null].filter(Boolean);
  const open = d.hands ? d.hands[seat] : null;
  return h("section", {class: `seat ${place(seat)}${d.turn === seat ? " turn" : ""}`, "data-seat": seat,
                       "aria-label": seatName(seat)},
    h("div", {class: "who"}, h("strong", {}, seatName(seat)),
      ` · ${t(teamOf(seat) === teamOf(v.seat) ? "us" : "them")}`,
      marks.length ? h("span", {class: "marks"}, ` (${listText(marks)})`) : null,
      d.phase === "bidding" && lastBid ? h("span", {class: "last-bid"}, ` — ${bidText(lastBid)}`) : null),
    mine ? null : h("div", {class: "hand"}, open ? sortHand(open, d.contract).map(cardEl)
      : Array.from({length: d.hand_sizes[seat]}, backEl)),
    d.turn === seat ? clockEl(seat) : null);
}

function trickEl() {
  const d = v.deal;
  const led = d.trick[0]?.seat;
  const onTable = new Map(d.trick.map(p => [p.seat, p.card]));
  const faceup = d.faceup && d.faceup_taken_by === null;     // in bidding: the card on the table
  return h("div", {class: "trick", id: "trick", "aria-label": t("trick")},
    faceup ? h("div", {class: "faceup-now", id: "faceup"}, t("faceup"), cardEl(d.faceup)) : null,
    [0, 1, 2, 3].map(s => h("div", {class: `slot ${place(s)}${d.winning === s ? " winning" : ""}`, "data-seat": s,
                                "data-led": s === led && onTable.has(s)},
      onTable.has(s) ? [cardEl(onTable.get(s)), h("span", {class: "slot-note"},
        [s === led ? t("led") : null, d.winning === s ? t("winning") : null].filter(Boolean).join(" · "))] : null)));
}

function boardEl() {
  const d = v.deal;
  return h("div", {class: "board", id: "board"}, [0, 1, 2, 3].map(seatEl), trickEl());
}

// My hand: buttons, the legal ones playable (click, Enter, or the card's number key), the others not.
function handEl() {
  const d = v.deal;
  const plays = d.legal_actions.filter(a => a.type === "play");
  const legal = new Set(plays.map(a => a.card));
  const withBaloot = new Set(plays.filter(a => a.baloot).map(a => a.card));
  const hand = sortHand(d.hand ?? [], d.contract);
  return h("div", {class: `my-hand${legal.size ? " choosing" : ""}`, id: "my-hand", role: "group", "aria-label": t("your_hand")},
    hand.map((card, k) => {
      const playable = legal.has(card) && !busy;
      return h("button", {type: "button", class: `hand-card${legal.has(card) ? " legal" : ""}`, "data-card": card,
                          disabled: !playable, "aria-label": `${cardLabel(card)}${legal.has(card) ? "" : ` (${t("not_playable")})`}`,
                          "aria-keyshortcuts": String(k + 1),
                          onclick: () => act({type: "play", card, baloot: withBaloot.has(card) && announceBaloot})},
        cardEl(card));
    }),
    withBaloot.size ? h("label", {class: "baloot-choice"}, h("input", {type: "checkbox", id: "announce-baloot",
      checked: announceBaloot, onchange: e => { announceBaloot = e.target.checked; }}), ` ${t("announce_baloot")}`) : null);
}

// ---- what I may do besides playing a card ----

function actionLabel(a) {
  if (a.type === "bid") return bidText(a);
  if (a.type === "double") return a.call === "pass" ? t("no_double")
    : `${t(a.call)}${a.closed === true ? ` (${t("closed")})` : a.closed === false ? ` (${t("open_game")})` : ""}`;
  if (a.type === "declare") return t("declare");
  return a.type;
}

// While another seat bids, the bidding bar stays in view, greyed: what this seat may say when its turn comes.
function waitingBids(d) {
  if (d.phase !== "bidding" || d.turn === v.seat) return [];
  return [{type: "bid", bid: "pass"}, {type: "bid", bid: "hokum", suit: d.faceup?.[1] ?? null}, {type: "bid", bid: "sun"},
          ...(d.rules.ashkal_allowed ? [{type: "bid", bid: "ashkal"}] : [])];
}

function choicesEl() {
  const d = v.deal;
  const others = d.legal_actions.filter(a => a.type !== "play");
  const later = waitingBids(d);
  if (!others.length && !later.length && !d.may_claim_sawa && v.table !== "recorded") return null;
  return h("div", {class: "choices", id: "choices"},
    d.phase === "bidding" ? h("p", {class: "prompt"}, d.turn === v.seat ? t(d.round === 2 ? "bid_round_2" : "bid_round_1")
      : t("bids_of", {name: seatName(d.turn)})) : null,
    later.map(a => h("button", {type: "button", class: "choice bid later", "data-action": "bid", "data-value": a.bid,
                                "data-suit": a.suit ?? "", disabled: true, onclick: () => act(a)}, actionLabel(a))),
    others.map(a => h("button", {type: "button", class: `choice ${a.type}`, "data-action": a.type,
                                 "data-value": a.bid ?? a.call ?? "", "data-suit": a.suit ?? "", disabled: busy,
                                 onclick: () => act(a)},
      actionLabel(a), a.type === "declare" ? h("span", {class: "declared"}, a.projects.flat().map(cardEl)) : null)),
    d.may_claim_sawa ? h("button", {type: "button", class: "choice sawa", id: "sawa", disabled: busy,
                                    onclick: () => act({type: "sawa"})}, t("claim_sawa")) : null,
    v.table === "recorded" && ["doubling", "playing", "review"].includes(d.phase)
      ? h("button", {type: "button", class: "choice qayd", id: "qayd-open", disabled: busy,
                     onclick: () => { qayd = {trick: 0, position: null}; render(); }},
          t("call_qayd")) : null);
}

// The index of an action in the deal's log, as Qayd names it: the bids, the doubling calls, then the cards,
// with a seat's declaration right before its first card.
function actionIndex(trickNo, position) {
  const d = v.deal;
  const declared = new Set(d.declarations.map(x => x.seat));
  const tricks = [...d.tricks.map(tr => tr.cards), d.trick];
  let index = d.bids.length + d.doubles.length;
  for (let k = 0; k < tricks.length; k++) {
    for (let p = 0; p < tricks[k].length; p++) {
      if (k === 0 && declared.has(tricks[k][p].seat)) index++;
      if (k === trickNo && p === position) return index;
      index++;
    }
  }
  return null;
}

function qaydDialogEl() {
  const d = v.deal;
  const tricks = [...d.tricks.map(tr => tr.cards), d.trick].filter(cards => cards.length);
  const choice = qayd ?? {trick: 0, position: null};
  const accusable = k => k >= 0 && teamOf(tricks[choice.trick]?.[k]?.seat ?? v.seat) !== teamOf(v.seat);  // opponents'
  if (!accusable(choice.position ?? -1)) choice.position = (tricks[choice.trick] ?? []).findIndex((_, k) => accusable(k));
  const cards = tricks[choice.trick] ?? [];
  return h("dialog", {id: "qayd-dialog", "aria-labelledby": "qayd-title"},
    h("form", {method: "dialog", onsubmit: e => {
      e.preventDefault();
      const index = actionIndex(choice.trick, choice.position);
      document.getElementById("qayd-dialog").close();
      qayd = null;
      if (index !== null && choice.position >= 0) act({type: "qayd", index});
    }},
    h("h2", {id: "qayd-title"}, t("call_qayd")),
    h("p", {class: "hint"}, t("qayd_explained")),
    tricks.length ? [
      h("p", {class: "field"}, h("label", {for: "qayd-trick"}, t("which_trick")),
        h("select", {id: "qayd-trick", onchange: e => { qayd = {trick: Number(e.target.value), position: null}; render(); }},
          tricks.map((_, k) => h("option", {value: k, selected: k === choice.trick}, `${t("trick")} ${k + 1}`)))),
      h("fieldset", {}, h("legend", {}, t("which_card")),
        cards.map((p, k) => h("label", {class: `qayd-card${teamOf(p.seat) === teamOf(v.seat) ? " own" : ""}`},
          h("input", {type: "radio", name: "qayd-card", value: k, checked: k === choice.position, disabled: !accusable(k),
                      onchange: () => { qayd = {trick: choice.trick, position: k}; }}),
          ` ${seatName(p.seat)}: `, cardEl(p.card)))),
      h("p", {class: "hint"}, t("qayd_rule")),
      h("div", {class: "controls"}, h("button", {type: "submit", class: "primary", id: "qayd-send", disabled: choice.position < 0}, t("accuse")),
        h("button", {type: "button", id: "qayd-referee", disabled: choice.position < 0, onclick: () => {
          const index = actionIndex(choice.trick, choice.position);
          document.getElementById("qayd-dialog").close();
          qayd = null;
          if (index !== null) act({reason: "qayd", index}, "calls");
        }}, t("ask_referee_to_rule")),
        h("button", {type: "button", onclick: () => { qayd = null; document.getElementById("qayd-dialog").close(); }},
          t("cancel")))]
      : [h("p", {}, t("nothing_to_accuse")), h("button", {type: "button", onclick: () => {
          qayd = null; document.getElementById("qayd-dialog").close(); }}, t("cancel"))]));
}

// ---- the referee: calling him, and what he ruled ----

const REASONS = ["claim_dispute", "misclick", "connection_loss", "collusion", "other"];

function callsEl() {
  const open = v.calls.find(c => c.seat === v.seat && c.status !== "ruled");
  return h("section", {class: "referee-box", id: "referee"},
    v.calls.length ? h("ul", {class: "calls", id: "calls"}, v.calls.map(c => h("li", {"data-call": c.call, "data-status": c.status},
      h("strong", {}, t("call_by", {n: c.call, name: seatName(c.seat)})), " ",
      t(`reason_${c.reason}`), c.index !== null ? ` (${t("action_n", {n: c.index})})` : "", " · ",
      h("span", {class: `call-status ${c.status}`}, t(`call_${c.status}`)),
      c.ruling ? h("p", {class: "ruling", "data-ruling": c.ruling}, `${t("ruled")}: ${t(`ruling_${c.ruling}`)} — ${c.ruling_reason}`)
        : null))) : null,
    v.status === "live" ? h("button", {type: "button", id: "call-referee", disabled: busy || !!open,
                                       title: open ? t("call_waiting") : "",
                                       onclick: () => { calling = {reason: "claim_dispute", note: ""}; render(); }},
                            t("call_referee")) : null,
    calling ? callDialogEl() : null);
}

function callDialogEl() {
  const close = () => { calling = null; document.getElementById("call-dialog").close(); };
  return h("dialog", {id: "call-dialog", "aria-labelledby": "call-title"},
    h("form", {method: "dialog", onsubmit: e => {
      e.preventDefault();
      const choice = {reason: calling.reason, note: calling.note};
      close();
      act(choice, "calls");
    }},
    h("h2", {id: "call-title"}, t("call_referee")),
    h("p", {class: "hint"}, t("call_explained")),
    h("p", {class: "field"}, h("label", {for: "call-reason"}, t("call_reason")),
      h("select", {id: "call-reason", onchange: e => { calling.reason = e.target.value; }},
        REASONS.map(r => h("option", {value: r, selected: r === calling.reason}, t(`reason_${r}`))))),
    h("p", {class: "field"}, h("label", {for: "call-note"}, t("call_note")),
      h("textarea", {id: "call-note", maxlength: 500, rows: 3, oninput: e => { calling.note = e.target.value; }}, calling.note)),
    h("div", {class: "controls"}, h("button", {type: "submit", class: "primary", id: "call-send"}, t("send_call")),
      h("button", {type: "button", onclick: close}, t("cancel")))));
}

// ---- the clock, the score, the deal's end ----

const secondsLeft = () => Math.max(0, Math.ceil((new Date(v.turn_deadline) - Date.now()) / 1000));
// The clock as a player reads it: "45 s" in the last minute, "14:59" before.
const clockText = left => left < 60 ? t("seconds", {n: left}) : `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;

function clockEl(seat) {
  if (!v.turn_deadline || v.clock_seat !== seat) return null;
  const left = secondsLeft();
  return h("span", {class: `clock${left <= 5 ? " low" : ""}`, "data-clock-seat": seat, role: "timer",
                    "aria-label": t("seconds_left", {n: left})}, clockText(left));
}

// Once a second: the clock's seconds, and nothing else redrawn (the keyboard's focus stays where it is).
function tick() {
  if (!v?.turn_deadline) return;
  const left = secondsLeft();
  for (const el of document.querySelectorAll("[data-clock-seat]")) {
    el.textContent = clockText(left);
    el.setAttribute("aria-label", t("seconds_left", {n: left}));
    el.classList.toggle("low", left <= 5);
  }
}

function clockNoteEl() {
  if (!v.turn_deadline) return null;
  return h("p", {class: "hint", id: "clock-note"}, t(`clock_then_${v.terms.on_timeout}`));
}

function scoreEl() {
  const d = v.deal;
  const us = teamOf(v.seat);
  return h("div", {class: "scorebar", id: "score"},
    h("span", {}, `${t("deal")} ${v.deal_no}`),
    h("span", {id: "score-us"}, `${t("us")}: ${v.scores[us]}`),
    h("span", {id: "score-them"}, `${t("them")}: ${v.scores[1 - us]}`),
    h("span", {}, `${t("target")} ${v.target}`),
    d ? h("span", {id: "contract"}, `${t("contract")}: ${contractText(d.contract)}`) : null,
    h("span", {class: `state ${liveState}`, id: "live-state"}, t(liveState)));
}

function dealEndEl() {
  const d = v.deal;
  const over = d?.result ? {deal_no: v.deal_no, result: d.result}
    : lastDeal && d && d.phase === "bidding" ? lastDeal : null;
  if (!over) return null;
  const r = over.result;
  const us = teamOf(v.seat);
  return h("section", {class: "deal-end", id: "deal-result", "data-deal-no": over.deal_no, "aria-live": "polite"},
    h("h2", {}, t("deal_no_over", {n: over.deal_no})),
    h("p", {}, `${t("us")}: ${r.game_points[us]} · ${t("them")}: ${r.game_points[1 - us]}`
      + (r.kaboot ? ` · ${t("kaboot")}` : "") + (r.failed ? ` · ${t("failed")}` : "") + (r.void ? ` · ${t("void_deal")}` : "")),
    r.qayd ? h("p", {id: "verdict", class: r.qayd.proven ? "ok" : "bad"},
      `${t("qayd")}: ${r.qayd.proven ? t("proven") : t("not_proven")}${r.qayd.rule ? ` (${r.qayd.rule})` : ""} — ${r.qayd.message}`) : null);
}

function gameEndEl() {
  if (v.phase !== "ended") return null;
  const winners = v.game === "balut" ? v.result?.winners ?? [] : v.winner === null ? [] : [v.winner];
  const won = v.game === "balut" ? winners.includes(v.seat) : winners.includes(teamOf(v.seat));
  return h("section", {class: "game-end", id: "game-end", "data-won": String(won)},
    h("h2", {}, !winners.length ? t("game_over") : won ? t("you_won") : t("you_lost")),
    h("p", {}, h("a", {href: `/watch/table.html?id=${encodeURIComponent(id)}&at=1`}, t("replay")), " · ",
      h("a", {href: "/play/"}, t("back_to_lobby"))));
}

function refusalEl() {
  if (!refusal) return null;
  return h("p", {class: "error refusal", role: "alert", id: "refusal", "data-rule": refusal.rule},
    refusal.rule ? h("code", {}, refusal.rule) : null, refusal.rule ? " — " : "", refusal.text);
}

function cardGameEl() {
  const d = v.deal;
  return [scoreEl(),
    d ? h("div", {class: "play", id: "game", "data-version": v.version, "data-phase": d.phase, "data-deal-no": v.deal_no},
      boardEl(), refusalEl(), choicesEl(), handEl(), clockNoteEl(), dealEndEl(),
      qayd ? qaydDialogEl() : null,
      h("details", {class: "terms-box"}, h("summary", {}, t("table_terms")), termsEl(v.terms, nameOf)),
      bidsEl()) : h("p", {}, t("waiting_for_deal")),
    gameEndEl()];
}

function bidsEl() {
  const d = v.deal;
  if (!d.bids.length) return null;
  return h("details", {class: "bids-box", open: d.phase === "bidding" || d.phase === "doubling"},
    h("summary", {}, t("bidding")),
    h("ol", {class: "bids", id: "bids"}, d.bids.map(b => h("li", {}, `${seatName(b.seat)}: ${bidText(b)}`)),
      d.doubles.map(x => h("li", {}, `${seatName(x.seat)}: ${x.call === "pass" ? t("no_double") : t(x.call)}`))));
}

// What has the keyboard's focus, to give it back after a redraw (a view arrives while a player is choosing).
function focusKey() {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  return el.id ? `#${el.id}` : el.dataset.card ? `[data-card="${el.dataset.card}"]`
    : el.dataset.action ? `[data-action="${el.dataset.action}"][data-value="${el.dataset.value}"][data-suit="${el.dataset.suit}"]`
    : el.dataset.die !== undefined ? `[data-die-index="${el.dataset.dieIndex}"]` : null;
}

function render() {
  const focused = focusKey();
  draw();
  const again = focused && document.querySelector(focused);
  if (again && !again.disabled) again.focus();
}

function draw() {
  if (!v) return;
  if (v.seat === null) {
    fill(main, h("h1", {}, t("not_your_table")), h("p", {}, t("not_seated")),
      h("p", {}, h("a", {href: `/watch/table.html?id=${encodeURIComponent(id)}`}, t("watch_instead"))));
    return;
  }
  if (v.status === "invited") {
    fill(main, h("h1", {}, t("table_waiting")), h("p", {}, t("waiting_for", {names: listText(v.waiting.map(u =>
      nameOf(u)?.name ?? "…"))})), termsEl(v.terms, nameOf), h("p", {}, h("a", {href: "/play/"}, t("back_to_lobby"))));
    return;
  }
  if (v.status === "cancelled") {
    fill(main, h("h1", {}, t("table_cancelled")), h("p", {}, h("a", {href: "/play/"}, t("back_to_lobby"))));
    return;
  }
  const title = h("h1", {}, t("table_of", {names: listText(v.seats.map((_, s) => s).filter(s => s !== v.seat).map(seatName))}));
  fill(main, title, v.game === "balut" ? balutPlayEl(v, {act, busy, refusal: refusalEl(), seatName, clockEl, clockNoteEl,
                                                          rerender: render, live: h("span", {class: `state ${liveState}`, id: "live-state"}, t(liveState))})
                                       : cardGameEl(), v.game === "balut" ? gameEndEl() : null, callsEl());
  const dialog = document.getElementById("qayd-dialog");
  if (qayd && dialog && !dialog.open) dialog.showModal();
  const call = document.getElementById("call-dialog");
  if (calling && call && !call.open) call.showModal();
}

function keys(e) {
  if (!v || e.target.closest("input, select, textarea, dialog")) return;
  if (v.game === "balut") { balutKeys(e); return; }
  if (!v.deal) return;
  const k = Number(e.key);
  if (k >= 1 && k <= 8) document.querySelectorAll("#my-hand .hand-card")[k - 1]?.click();
}

async function showView(view) {
  if (v && view.version < v.version) return;            // an older view arriving late changes nothing
  if (!v || v.seats.join() !== view.seats.join()) nameOf = await userNames(
    [...view.seats.filter(u => u !== "bot"), view.terms?.referee].filter(Boolean));
  if (v?.deal?.result && view.deal_no > v.deal_no) lastDeal = {deal_no: v.deal_no, result: v.deal.result};
  v = view;
  render();
}

async function load() {
  me = await signedIn();
  if (!me) { location.href = `/play/?next=${encodeURIComponent(location.pathname + location.search)}`; return; }
  whenSignedOut(() => { location.href = "/play/"; });
  const account = document.getElementById("account");
  if (account) fill(account, h("span", {class: "me"}, me.name, me.login ? ` (${me.login})` : ""));
  const first = await get(`/tables/${encodeURIComponent(id)}/view`);
  if (first.status === "finished") liveState = "ended";       // a finished table is not shown "Live"
  await showView(first);
  if (first.status === "finished") return;
  follow(`/tables/${encodeURIComponent(id)}/live`, (event, data) => { if (event === "view") showView(JSON.parse(data)); },
         state => { liveState = state; render(); }, first.version);
  ticker = setInterval(tick, 1000);
}

setUp();
onChange(render);
document.addEventListener("keydown", keys);
load().catch(error => fill(main, h("p", {class: "error", role: "alert"}, `${t("error")}: ${error.message}`)));
