// A table to play at (/play/table.html?id=T), drawn from my seat's view and its live stream only: my hand sorted
// by suit and order with the legal cards playable, the bids, doubles, projects, Baloot, Sawa and Qayd the rules
// allow now, the trick with who led it and who is winning it (each card travelling there from its seat, the trick
// gathered to its winner), the last trick on demand, the score and contract, the deal's and the game's score
// sheets, the turn clock and a turn tone, the game's end said in words, and every refusal in the page's language
// where it happened. The dice game has its own panel (play_balut.js).
import {follow, get, send, signedIn, userNames, whenSignedOut} from "./api.js";
import {backEl, cardEl, cardLabel, fill, h, suitName} from "./cards.js";
import {listText, onChange, setUp, t, tOr} from "./i18n.js";
import {balutKeys, balutPlayEl} from "./play_balut.js";
import {termsEl} from "./terms.js";
import "./words_play.js";
import "./words_referee.js";
import "./words_review.js";

const main = document.getElementById("main");
const id = new URLSearchParams(location.search).get("id");
let me = null, v = null, nameOf = () => undefined, liveState = "live";
let refusal = null;          // the server's last refusal of my action: {rule, text, details}
let busy = false;            // an action of mine is on its way
let announceBaloot = true;   // play a king or queen of trumps that makes Baloot with the announcement
let qayd = null;             // the Qayd dialog's choice: {trick, position}
let calling = null;          // the call-the-referee dialog's choice: {reason, note}
let ticker = null;
let lastDeal = null;         // the deal just over ({deal_no, result, contract}), shown while the next one is bid
let moves = new Map();       // cards travelling from their seat to the trick: card -> {seat, start}
let gather = null;           // the trick just taken, gathered toward its winner: {cards, winner, start}
let showLast = false;        // the last trick's review is open
let termsOpen = false;       // the terms unfolded, kept so by every redraw (a view arrives each bot action)
let bidsOpen = null;         // the bidding unfolded or folded by the player; null: open while the deal is bid
const MOVE_MS = 380, HOLD_MS = 650, GATHER_MS = 450;
const SOUND_KEY = "baloot.play.sound";
let audio = null;            // the turn tone's AudioContext, made on the first click that turns sound on
let rung = null;             // the decision of mine the turn tone last said (deal, bids, doubles, cards played)

const PLACES = ["south", "east", "north", "west"];    // my seat at the bottom; play goes round to the right
const SUITS = ["S", "H", "C", "D"];                   // black, red, black, red
const ORDER = {plain: "ATKQJ987", trump: "J9ATKQ87"};

const place = seat => PLACES[(seat - (v.seat ?? 0) + 4) % 4];
const teamOf = seat => seat % 2;

// Where a seat sits from mine: my partner across, an opponent on my right (plays after me) and on my left.
const RELATIONS = ["me", "right", "partner", "left"];
const relation = seat => RELATIONS[(seat - (v.seat ?? 0) + 4) % 4];

// A seat said as a person: "You", a name, or a bot told apart by where it sits ("Your partner (bot)") — never a
// seat number. A dice table's bots have no partner: they are told apart by their place in the round.
function seatName(seat) {
  if (seat === v.seat) return t("you");
  const user = isBot(v.seats[seat]) ? null : nameOf(v.seats[seat]);
  if (user?.name) return user.name;
  if (v.game === "balut") return `${t("bot")} ${seat + 1}`;
  return t(`bot_${relation(seat)}`);
}

// A bot's own account (not a person a bot plays for): all the bots of a level share one, named by the level.
const isBot = user => user === "bot" || /^bot-/.test(user ?? "");

// Where a name sits inside a sentence: isolated, so that a Latin name or a card list keeps its order in Arabic.
const bdi = (...children) => h("bdi", {}, ...children);
const cardsText = cards => h("bdi", {dir: "ltr", class: "card-list"}, cards.map(cardEl));

// A sentence of ours with elements in its places ("{who} did not follow {led}"): the words in the page's
// language, each {name} an element.
function said(key, parts) {
  const marks = Object.fromEntries(Object.keys(parts).map(k => [k, `\uE000${k}\uE001`]));
  return t(key, marks).split(/\uE000(\w+)\uE001/).map((piece, k) => k % 2 ? parts[piece] : piece);
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

// The contract as a player says it: "Hokum ♠ spades · bought by Your partner (bot) · ×2" (the word for the
// contract itself left out: in Arabic it is spelt nearly as the buyer is, المشترى beside المشتري).
function contractEl(c) {
  if (!c) return null;
  return h("span", {id: "contract"}, [c.ashkal ? t("ashkal") : t(c.type), c.type === "hokum" && c.suit ? ` ${suitName(c.suit)}` : "",
    " · ", ...said("bought_by", {who: bdi(seatName(c.buyer))}),
    c.multiplier > 1 ? ` · ×${c.multiplier}` : "", c.gahwa ? ` · ${t("gahwa")}` : "", c.closed ? ` · ${t("closed")}` : ""]);
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
    refusal = {rule: error.rule ?? "", text: error.message, details: error.details ?? null};
  } finally {
    busy = false;
    render();
  }
}

// ---- the board ----

// A seat: its name, a mark that tells partner from opponents (the colour of its side, and the side said), the
// dealer, Baloot, its last bid, and — the seat whose turn it is — a ring and an arrow.
function seatEl(seat) {
  const d = v.deal;
  const mine = seat === v.seat;
  const lastBid = [...d.bids].reverse().find(b => b.seat === seat);
  const marks = [d.dealer === seat ? t("dealer") : null, d.baloot.includes(seat) ? t("baloot") : null].filter(Boolean);
  const open = d.hands ? d.hands[seat] : null;
  const ours = teamOf(seat) === teamOf(v.seat);
  const level = v.played_by_bot?.[seat] ?? v.terms?.bots?.[seat] ?? null;
  return h("section", {class: `seat ${place(seat)} ${ours ? "ours" : "theirs"}${d.turn === seat ? " turn" : ""}`,
                       "data-seat": seat, "data-relation": relation(seat), "aria-label": seatName(seat),
                       "aria-current": d.turn === seat ? "true" : null},
    h("div", {class: "who"}, h("span", {class: "side-mark", "aria-hidden": "true"}, ours ? "●" : "◆"), " ",
      h("strong", {title: level ? `${t("bot")} (${t(`level_${level}`)})` : null}, bdi(seatName(seat))),
      mine ? null : h("span", {class: "side"}, ` · ${t(ours ? "partner_side" : "opponent_side")}`),
      d.turn === seat ? h("span", {class: "turn-mark"}, mine ? t("your_turn_now") : t("to_play")) : null,
      marks.length ? h("span", {class: "marks"}, ` (${listText(marks)})`) : null,
      d.phase === "bidding" && lastBid ? h("span", {class: "last-bid"}, ` — ${bidText(lastBid)}`) : null),
    mine ? null : h("div", {class: "hand"}, open ? sortHand(open, d.contract).map(cardEl)
      : Array.from({length: d.hand_sizes[seat]}, backEl)),
    d.turn === seat && !mine ? clockEl(seat) : null);
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
      onTable.has(s) ? [moving(cardEl(onTable.get(s)), s), h("span", {class: "slot-note"},
        [s === led ? t("led") : null, d.winning === s ? t("winning") : null].filter(Boolean).join(" · "))] : null)),
    gatherEl());
}

// ---- cards that move ----
// A card played travels from its seat to its place in the trick; a trick taken stays a moment, then is gathered
// toward its winner. Each movement is a Web Animation started when the view that shows it arrives, and taken up
// again where it was by every redraw until it ends (a redraw makes new elements). Nothing moves for a person
// who asks his system for less motion.
const stillness = matchMedia("(prefers-reduced-motion: reduce)");

function moving(el, seat) {
  const m = moves.get(el.dataset.card);
  if (m && m.seat === seat && performance.now() - m.start < MOVE_MS) el.dataset.moveFrom = seat;
  return el;
}

function gatherEl() {
  if (!gather || performance.now() - gather.start >= HOLD_MS + GATHER_MS) return null;
  return h("div", {class: "gather", id: "gather", "data-winner": gather.winner, "aria-hidden": "true"},
    gather.cards.map(p => h("div", {class: `slot ${place(p.seat)}${p.seat === gather.winner ? " winning" : ""}`},
      moving(cardEl(p.card), p.seat))));
}

const centre = el => { const r = el.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; };
const origin = seat => seat === v.seat ? document.getElementById("my-hand")
  : document.querySelector(`#board .seat[data-seat="${seat}"]`);

function animate() {
  if (stillness.matches) return;
  const now = performance.now();
  const layer = document.getElementById("gather");
  if (layer) {
    const to = origin(gather.winner);
    const total = HOLD_MS + GATHER_MS;
    for (const el of layer.querySelectorAll(".card")) {
      const [x0, y0] = centre(el), [x1, y1] = to ? centre(to) : [x0, y0];
      el.animate([{transform: "none", opacity: 1}, {transform: "none", opacity: 1, offset: HOLD_MS / total},
                  {transform: `translate(${x1 - x0}px, ${y1 - y0}px) scale(.4)`, opacity: 0}],
                 {duration: total, delay: gather.start - now, easing: "ease-in", fill: "forwards"});
    }
  }
  for (const el of document.querySelectorAll("#trick .slot > .card[data-move-from]")) {
    const from = origin(Number(el.dataset.moveFrom));
    const m = moves.get(el.dataset.card);
    if (!from || !m) continue;
    const [x0, y0] = centre(from), [x1, y1] = centre(el);
    el.animate([{transform: `translate(${x0 - x1}px, ${y0 - y1}px) scale(.8)`}, {transform: "none"}],
               {duration: MOVE_MS, delay: m.start - now, easing: "ease-out", fill: "backwards"});
  }
}

// What moved between two views of the same deal: the cards newly on the table, and a trick just taken.
function noteMoves(before, after) {
  const now = performance.now();
  const a = after.deal;
  if (!a || !before?.deal || before.deal_no !== after.deal_no) { moves = new Map(); gather = null; }
  if (!a || !before) return;                             // the page's first view: nothing moved before my eyes
  // A new deal's first view may already hold cards the bots played at once: they came from their seats too.
  const b = before.deal_no === after.deal_no && before.deal ? before.deal : {trick: [], tricks: []};
  const seen = new Set(b.trick.map(p => p.card));
  const taken = a.tricks.length > b.tricks.length ? a.tricks[a.tricks.length - 1] : null;
  for (const p of [...(taken ? taken.cards : []), ...a.trick]) {
    if (!seen.has(p.card) && !b.tricks.some(tr => tr.cards.some(q => q.card === p.card))) moves.set(p.card, {seat: p.seat, start: now});
  }
  if (taken) {
    gather = {cards: taken.cards, winner: taken.winner, start: now};
    setTimeout(render, HOLD_MS + GATHER_MS + 20);
  }
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
  const myTurn = d.turn === v.seat && ["bidding", "doubling", "playing"].includes(d.phase);
  return h("div", {class: `my-hand${legal.size ? " choosing" : ""}${myTurn ? " my-turn-now" : ""}`, id: "my-hand", role: "group",
                   "aria-label": t("your_hand")},
    myTurn ? h("p", {class: "your-turn", id: "your-turn", role: "status"}, t("your_turn_now"), clockEl(v.seat)) : null,
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
    d.phase === "bidding" && d.turn !== null ? h("p", {class: "prompt"}, d.turn === v.seat ? t(d.round === 2 ? "bid_round_2" : "bid_round_1")
      : said("bids_of", {name: bdi(seatName(d.turn))})) : null,
    others.some(a => a.bid === "wala") ? h("p", {class: "hint wala-hint", id: "wala-hint"}, t("wala_explained")) : null,
    later.map(a => h("button", {type: "button", class: "choice bid later", "data-action": "bid", "data-value": a.bid,
                                "data-suit": a.suit ?? "", disabled: true, onclick: () => act(a)}, actionLabel(a))),
    others.map(a => h("button", {type: "button", class: `choice ${a.type}`, "data-action": a.type,
                                 "data-value": a.bid ?? a.call ?? "", "data-suit": a.suit ?? "", disabled: busy,
                                 title: a.bid === "wala" ? t("wala_explained") : null, onclick: () => act(a)},
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

// The bar above the board: the deal, the score, the contract, and the table's state ("Live", or the game over:
// never a green "Live" at a finished table).
function scoreEl() {
  const d = v.deal;
  const us = teamOf(v.seat);
  const state = v.status === "finished" || v.phase === "ended" ? "ended" : liveState;
  return h("div", {class: "scorebar", id: "score"},
    h("span", {}, `${t("deal")} ${v.deal_no}`),
    h("span", {id: "score-us", class: "ours"}, `${t("us")}: ${v.scores[us]}`),
    h("span", {id: "score-them", class: "theirs"}, `${t("them")}: ${v.scores[1 - us]}`),
    h("span", {class: "target"}, `${t("target")} ${v.target}`),
    d?.contract ? contractEl(d.contract) : null,
    h("span", {class: `state ${state}`, id: "live-state"}, t(state)));
}

// What a player asks for besides playing, under his hand where his thumb is: the last trick, the score sheet,
// the turn sound.
function toolsEl() {
  const d = v.deal;
  return h("div", {class: "table-tools", id: "table-tools"},
    d?.tricks.length ? h("button", {type: "button", id: "last-trick-button", "aria-expanded": String(showLast),
                                     onclick: () => { showLast = !showLast; render(); reveal("last-trick"); }},
                         t("last_trick")) : null,
    v.phase === "ended" ? null            // the game's end shows the sheet
      : h("button", {type: "button", id: "sheet-button", "aria-expanded": String(sheetOpen),
                     onclick: () => { sheetOpen = !sheetOpen; render(); reveal("sheet-box"); }}, t("score_sheet")),
    soundEl());
}

// What a button opened, brought into sight (on a phone it opens under the hand, near the screen's foot).
const reveal = id => document.getElementById(id)?.scrollIntoView({block: "nearest", behavior: stillness.matches ? "auto" : "smooth"});

// ---- the turn sound: off until the player turns it on (remembered on this browser), a tone made here ----

const soundOn = () => localStorage.getItem(SOUND_KEY) === "on";

function soundEl() {
  const on = soundOn();
  return h("button", {type: "button", id: "sound", "aria-pressed": String(on), title: t("sound_hint"),
                      onclick: () => {
                        localStorage.setItem(SOUND_KEY, on ? "off" : "on");
                        if (!on) tone();            // a click lets a page make sound: the tone says it is on
                        render();
                      }}, on ? t("sound_on") : t("sound_off"));
}

function tone() {
  try {
    audio ??= new AudioContext();
    if (audio.state === "suspended") audio.resume();
    const now = audio.currentTime;
    const osc = audio.createOscillator(), gain = audio.createGain();
    osc.type = "sine";
    osc.frequency.setValueAtTime(660, now);
    osc.frequency.setValueAtTime(880, now + 0.09);
    gain.gain.setValueAtTime(0.0001, now);
    gain.gain.exponentialRampToValueAtTime(0.25, now + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + 0.28);
    osc.connect(gain).connect(audio.destination);
    osc.start(now);
    osc.stop(now + 0.3);
  } catch { /* no sound on this browser: the turn is shown all the same */ }
}

// ---- the last trick, on demand ----

function lastTrickEl() {
  const d = v.deal;
  const last = d?.tricks[d.tricks.length - 1];
  if (!showLast || !last) return null;
  return h("section", {class: "last-trick", id: "last-trick", "data-winner": last.winner, "aria-label": t("last_trick")},
    h("h2", {}, t("last_trick_n", {n: d.tricks.length})),
    h("ol", {}, last.cards.map((p, k) => h("li", {"data-seat": p.seat, class: p.seat === last.winner ? "won" : null},
      cardEl(p.card), " ", bdi(seatName(p.seat)), k === 0 ? ` (${t("led")})` : ""))),
    h("p", {class: "taken-by"}, ...said("trick_taken_by", {who: bdi(seatName(last.winner))})),
    h("button", {type: "button", onclick: () => { showLast = false; render(); }}, t("close")));
}

// ---- the score sheet: a deal's, and the game's ----

let sheetOpen = false;

const projectName = kind => tOr(`project_${kind}`, kind);

// Why the deal went as it did, as the table says it: the buyer made it, failed (his side's points against the
// other's), Kaboot, Gahwa, a split, a void deal, a referee's award.
function outcomeEl(r, c) {
  const us = teamOf(v.seat);
  const side = team => bdi(team === us ? t("side_us") : t("side_them"));
  if (r.void) return h("p", {class: "outcome", "data-outcome": "void"}, t("deal_void_said"));
  const buyerTeam = c ? teamOf(c.buyer) : null;
  // What decides whether the buyer made it: Saudi scoring compares the converted points with projects; the French
  // profiles (card-point scoring) compare card points, declarations and Belote.
  const cardScoring = v.deal?.rules?.scoring === "card_points";
  const points = team => String(cardScoring ? r.card_points[team] + r.project_gp[team] + r.baloot[team]
                                            : r.card_gp[team] + r.project_gp[team]);
  const mine = c && c.buyer === v.seat ? "_you" : "";          // "You bought": a verb of its own in Arabic
  const buyer = c ? {buyer: bdi(seatName(c.buyer)), own: points(buyerTeam), other: points(1 - buyerTeam)} : {};
  const lines = [];
  if (r.kaboot) lines.push(said("outcome_kaboot", {side: side(r.winner ?? buyerTeam)}));
  else if (r.awarded) lines.push(said("outcome_awarded", {side: side(r.winner)}));
  else if (r.qayd) lines.push(said(r.qayd.proven ? "outcome_qayd_proven" : "outcome_qayd_not_proven",
    {who: bdi(seatName(r.qayd.proven ? r.qayd.accused : r.qayd.caller)), rule: ruleWords(r.qayd.rule)}));
  else if (r.split) lines.push([t("outcome_split")]);
  else if (c && r.held) lines.push(said("outcome_held", buyer));
  else if (c && r.failed) lines.push(said(`${buyer.own === buyer.other ? "outcome_failed_tie" : "outcome_failed"}${mine}`, buyer));
  else if (c) lines.push(said(`outcome_made${mine}`, buyer));
  if (c && c.multiplier > 1 && !r.kaboot) lines.push(said("outcome_doubled", {x: `×${c.multiplier}`, side: side(r.winner ?? buyerTeam)}));
  if (r.gahwa_winner !== null && r.gahwa_winner !== undefined) lines.push(said("outcome_gahwa", {side: side(r.gahwa_winner)}));
  return h("p", {class: `outcome${r.failed ? " bad" : ""}`, "data-outcome": r.kaboot ? "kaboot" : r.failed ? "failed" : "made"},
    lines.map((l, k) => k ? [" ", ...l] : l));
}

function dealSheetEl(over) {
  const r = over.result, c = over.contract;
  const us = teamOf(v.seat), pair = [us, 1 - us];
  const row = (key, values, extra = null) => h("tr", {"data-row": key}, h("th", {scope: "row"}, t(`sheet_${key}`), extra),
    pair.map((team, k) => h("td", {"data-team": k ? "them" : "us"}, String(values[team]))));
  const projects = r.projects.length ? h("ul", {class: "sheet-projects"}, r.projects.map(p =>
    h("li", {}, projectName(p.kind), " · ", bdi(seatName(p.seat))))) : null;
  return h("table", {class: "sheet deal-sheet", id: "deal-sheet", "data-deal-no": over.deal_no},
    h("caption", {}, c ? [c.ashkal ? t("ashkal") : t(c.type), c.type === "hokum" && c.suit ? ` ${suitName(c.suit)}` : "", " · ",
                          ...said("bought_by", {who: bdi(seatName(c.buyer))}), c.multiplier > 1 ? ` · ×${c.multiplier}` : "",
                          c.gahwa ? ` · ${t("gahwa")}` : ""] : t("deal_void_said")),
    h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", {scope: "col"}, t("us")), h("th", {scope: "col"}, t("them")))),
    h("tbody", {},
      row("abnat", r.card_points),
      r.card_gp.some(Boolean) ? row("card_gp", r.card_gp) : null,
      r.project_gp.some(Boolean) ? row("projects", r.project_gp, projects) : null,
      r.baloot.some(Boolean) ? row("baloot", r.baloot) : null),
    h("tfoot", {}, row("deal_total", r.game_points)));
}

// Every deal of the game so far, both sides' points and the running total, as a scorer's sheet (النشرة) reads.
function gameSheetEl() {
  const us = teamOf(v.seat);
  let a = 0, b = 0;
  const results = v.results ?? [];
  return h("table", {class: "sheet game-sheet", id: "game-sheet"},
    h("caption", {}, t("game_sheet")),
    h("thead", {}, h("tr", {}, h("th", {scope: "col"}, t("deal")), h("th", {scope: "col"}, t("us")),
      h("th", {scope: "col"}, t("them")), h("th", {scope: "col", class: "running"}, t("running_total")))),
    h("tbody", {}, results.map((gp, k) => {
      a += gp[us]; b += gp[1 - us];
      return h("tr", {"data-deal-no": k + 1}, h("th", {scope: "row"}, String(k + 1)),
        h("td", {"data-team": "us"}, String(gp[us])), h("td", {"data-team": "them"}, String(gp[1 - us])),
        h("td", {class: "running"}, `${a} – ${b}`));          // ours first, in the reading direction
    })),
    h("tfoot", {}, h("tr", {"data-row": "total"}, h("th", {scope: "row"}, t("sheet_total")),
      h("td", {"data-team": "us"}, String(v.scores[us])), h("td", {"data-team": "them"}, String(v.scores[1 - us])),
      h("td", {class: "running"}, `${t("target")} ${v.target}`))));
}

function sheetBoxEl() {
  if (!sheetOpen || v.phase === "ended") return null;
  return h("section", {class: "sheet-box", id: "sheet-box"}, gameSheetEl(),
    h("button", {type: "button", onclick: () => { sheetOpen = false; render(); }}, t("close")));
}

function dealEndEl() {
  const d = v.deal;
  const over = d?.result ? {deal_no: v.deal_no, result: d.result, contract: d.contract}
    : lastDeal && d && d.phase === "bidding" ? lastDeal : null;
  if (!over) return null;
  return h("section", {class: "deal-end", id: "deal-result", "data-deal-no": over.deal_no, "aria-live": "polite"},
    h("h2", {}, t("deal_no_over", {n: over.deal_no})),
    outcomeEl(over.result, over.contract),
    over.result.void ? null : dealSheetEl(over),
    over.result.void || v.game === "balut" ? null : h("p", {}, reviewLinkEl(over.deal_no)));
}

// A finished deal's review (its choices marked by what they cost), opened beside the table.
function reviewLinkEl(dealNo) {
  return h("a", {href: `/play/review.html?table=${encodeURIComponent(id)}&deal=${dealNo}`, id: `review-link-${dealNo}`,
                 class: "review-link", target: "_blank"}, t("review_deal_n", {n: dealNo}));
}

// The game's end: who won and how (the final score, the deals played, the reason in words), and — where a bot
// played a person's seat — that it did, rather than a bare "You won!".
function gameEndEl() {
  if (v.phase !== "ended") return null;
  const winners = v.game === "balut" ? v.result?.winners ?? [] : v.winner === null ? [] : [v.winner];
  const won = v.game === "balut" ? winners.includes(v.seat) : winners.includes(teamOf(v.seat));
  const links = h("p", {}, h("a", {href: `/watch/table.html?id=${encodeURIComponent(id)}&at=1`}, t("replay")), " · ",
    h("a", {href: "/play/"}, t("back_to_lobby")));
  if (v.game === "balut") {
    return h("section", {class: "game-end", id: "game-end", "data-won": String(won)},
      h("h2", {}, !winners.length ? t("game_over") : won ? t("you_won") : t("you_lost")), links);
  }
  const us = teamOf(v.seat);
  const botForMe = v.played_by_bot?.[v.seat] ?? null;
  const botForPartner = v.played_by_bot?.[(v.seat + 2) % 4] ?? null;
  const headline = !winners.length ? t("game_over") : botForMe ? t(won ? "your_side_won_bot" : "your_side_lost_bot")
    : won ? t("you_won") : t("you_lost");
  const reason = v.end_reason ?? "target";
  const leader = v.winner === null ? null : v.winner === us ? t("side_us") : t("side_them");
  return h("section", {class: `game-end ${won ? "won" : "lost"}`, id: "game-end", "data-won": String(won),
                       "data-reason": reason},
    h("h2", {}, headline),
    h("p", {class: "final-score", id: "final-score"}, h("span", {class: "ours"}, `${t("us")} ${v.scores[us]}`), " – ",
      h("span", {class: "theirs"}, `${t("them")} ${v.scores[1 - us]}`), " · ", t("deals_played", {n: (v.results ?? []).length})),
    h("p", {class: "end-reason", id: "end-reason"}, ...said(`end_${reason}`, {side: bdi(leader ?? ""), target: String(v.target),
                                                                             deals: String((v.results ?? []).length)})),
    botForMe ? h("p", {class: "note", id: "bot-played"}, t("bot_played_for_you", {level: t(`level_${botForMe}`)})) : null,
    botForPartner ? h("p", {class: "note"}, t("bot_played_for_partner", {level: t(`level_${botForPartner}`)})) : null,
    gameSheetEl(), links);
}

// A refusal in the page's language, from its rule and what it names (the seat said as a person, the cards as
// cards); a rule this page has no words for is said generally, the server's words kept for a referee in a title.
const ruleWords = rule => tOr(`rule_${rule}`, t("rule_other"));

function refusalEl() {
  if (!refusal) return null;
  const x = refusal.details ?? {};
  const who = x.seat !== undefined && x.seat !== null && v ? bdi(seatName(x.seat)) : bdi(t("you"));
  const parts = {who, card: x.card ? cardsText([x.card]) : "", led: x.led ? cardsText([x.led]) : "",
                 held: x.held?.length ? cardsText(x.held) : "", turn: x.turn !== undefined && v ? bdi(seatName(x.turn)) : ""};
  const sentence = `refuse_${refusal.rule}`;
  const detailed = tOr(sentence, null) !== null && (refusal.details || !NEEDS_DETAILS.has(refusal.rule));
  return h("p", {class: "error refusal", role: "alert", id: "refusal", "data-rule": refusal.rule, title: refusal.text},
    h("strong", {}, ruleWords(refusal.rule)), " — ",
    detailed ? said(sentence, parts) : t("refused_generally"));
}

// The rules whose sentence names what only the server's details give (without them: the rule's name only).
const NEEDS_DETAILS = new Set(["revoke", "must_trump", "must_overtrump", "closed_trump_lead", "card_not_held", "not_your_turn"]);

function cardGameEl() {
  const d = v.deal;
  const ended = v.phase === "ended";
  return [scoreEl(), gameEndEl(), ended ? dealEndEl() : null,
    d ? h("div", {class: "play", id: "game", "data-version": v.version, "data-phase": d.phase, "data-deal-no": v.deal_no,
                  "data-turn": d.turn ?? "", "data-tricks": d.tricks.length},
      // Once the game is over, the board is shown only with cards on it (a game cut short lays its hands open).
      ended && !d.hands?.some(hand => hand.length) ? null : boardEl(), refusalEl(), choicesEl(),
      ended ? null : handEl(), toolsEl(), lastTrickEl(), sheetBoxEl(), ended ? null : dealEndEl(),
      clockNoteEl(),
      qayd ? qaydDialogEl() : null,
      h("details", {class: "terms-box", open: termsOpen, ontoggle: e => { termsOpen = e.target.open; }},
        h("summary", {}, t("table_terms")), termsEl(v.terms, nameOf, seatName)),
      bidsEl()) : h("p", {}, t("waiting_for_deal"))];
}

function bidsEl() {
  const d = v.deal;
  if (!d.bids.length) return null;
  const open = bidsOpen ?? (d.phase === "bidding" || d.phase === "doubling");
  return h("details", {class: "bids-box", open, ontoggle: e => { if (e.target.open !== open) bidsOpen = e.target.open; }},
    h("summary", {}, t("bidding")),
    h("ol", {class: "bids", id: "bids"}, d.bids.map(b => h("li", {"data-seat": b.seat}, bdi(seatName(b.seat)), `: ${bidText(b)}`)),
      d.doubles.map(x => h("li", {"data-seat": x.seat}, bdi(seatName(x.seat)), `: ${x.call === "pass" ? t("no_double") : t(x.call)}`))));
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
  if (v?.game !== "balut" && v?.deal) animate();
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
  if (v?.deal?.result && view.deal_no > v.deal_no) lastDeal = {deal_no: v.deal_no, result: v.deal.result, contract: v.deal.contract};
  const before = v;
  if (view.game !== "balut") {
    noteMoves(before, view);
    // The turn comes to me: a tone, once for each decision, if the player turned the sound on.
    const d = view.deal;
    const decision = d && d.turn === view.seat && ["bidding", "doubling", "playing"].includes(d.phase)
      ? `${view.deal_no}:${d.bids.length}:${d.doubles.length}:${d.tricks.length * 4 + d.trick.length}` : null;
    if (decision && decision !== rung && before && soundOn()) tone();
    rung = decision ?? rung;
    if (view.deal?.tricks.length !== before?.deal?.tricks.length && showLast && !view.deal?.tricks.length) showLast = false;
  }
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
