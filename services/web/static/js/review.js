// A deal's review (/play/review.html?table=T&deal=N, and /watch/review.html for spectators and officials): each
// choice of a seat — bids, doubles, cards — in order, with what it gave away on average by what its player could
// know (the mark: inaccuracy, mistake, blunder), the best he could have known, and what the cards on the table
// said; a line per deal ("you gave away N GP, your partner M"); the deal's evaluation curve with the turning
// point and the seat's marks. The server decides who may read it (a shared board's once the board is closed).
import {get, signedIn, userNames} from "./api.js";
import {cardEl, fill, h, suitName} from "./cards.js";
import {onChange, setUp, t} from "./i18n.js";
import {who} from "./bidi.js";
import {curveEl, dealEvaluation} from "./evaluation.js";
import "./words_watch.js";
import "./words_review.js";

const main = document.getElementById("main");
const params = new URLSearchParams(location.search);
const table = params.get("table") || "";
const deal = Number(params.get("deal") || "1");
const POLL_MS = 2000, POLLS = 150;

let review = null, evaluation = null, failure = null, nameOf = () => undefined, seat = null, polls = 0;

const seatName = s => nameOf(review.seats[s])?.name ?? t("seat_n", {n: s + 1});
const replayAt = version => `/watch/table.html?id=${encodeURIComponent(table)}&at=${version}`;

// An option as a player says it: a card as a card, a bid or a double in words.
function optionEl(name, kind) {
  if (kind === "card") return cardEl(name);
  if (name.startsWith("hokum:")) return h("span", {class: "call"}, `${t("hokum")} ${suitName(name.slice(6))}`);
  return h("span", {class: "call"}, t(kind === "double" && name === "pass" ? "no_double" : name));
}

function whenEl(c) {
  return c.kind === "card" ? t("review_when_card", {n: c.trick, phase: t(`phase_${c.phase}`)})
    : t(c.kind === "double" ? "review_when_double" : "review_when_bid");
}

function gp(x) {
  return h("bdi", {dir: "ltr"}, `${x > 0 ? "−" : ""}${x.toFixed(1)}`);
}

function lineEl() {
  const lines = new Map(review.seat_lines.map(l => [l.seat, l]));
  const mine = lines.get(seat), partner = lines.get((seat + 2) % 4);
  const own = review.seat === seat;
  return h("p", {class: "review-line", id: "review-line", "data-seat": seat, "data-cost": mine.cost.toFixed(2),
                 "data-partner-cost": partner.cost.toFixed(2)},
    own ? t("review_line_you", {n: mine.cost.toFixed(1), m: partner.cost.toFixed(1)})
      : [who(seatName(seat)), " ", t("review_line_other", {n: mine.cost.toFixed(1)}), " ",
         who(seatName((seat + 2) % 4)), " ", t("review_line_partner", {m: partner.cost.toFixed(1)})],
    " ", h("span", {class: "muted"}, t("review_marks_count", {b: mine.blunders, m: mine.mistakes, i: mine.inaccuracies})));
}

function seatsEl() {
  return h("div", {class: "seat-tabs", role: "group", "aria-label": t("review_seat")}, [0, 1, 2, 3].map(s =>
    h("button", {type: "button", "data-seat": s, "aria-pressed": String(s === seat),
                 onclick: () => { seat = s; render(); }},
      tabName(s))));
}

// A seat as its tab says it: "You", or where it sits from the reader's seat and who plays it; a spectator's tabs
// name the players.
function tabName(s) {
  if (review.seat === null) return who(seatName(s));
  const relation = ["you", "review_rel_right", "review_rel_partner", "review_rel_left"][(s - review.seat + 4) % 4];
  return relation === "you" ? t("you") : [t(relation), " · ", who(seatName(s))];
}

function legendEl() {
  const least = Object.fromEntries(review.marks.map(m => [m.mark, m.least]));
  return h("p", {class: "hint", id: "review-legend"}, t("review_legend", {i: least.inaccuracy, m: least.mistake,
                                                                       b: least.blunder}));
}

function choicesEl() {
  const mine = review.choices.filter(x => x.choice.seat === seat);
  if (!mine.length) return h("p", {id: "choices"}, t("review_no_choices"));
  return h("table", {class: "list review-table", id: "choices"},
    h("thead", {}, h("tr", {}, ["review_col_when", "review_col_played", "review_col_mark", "review_col_best",
                                "review_col_true"].map(k => h("th", {scope: "col"}, t(k))))),
    h("tbody", {}, mine.map(({version, choice: c}) => h("tr", {
        class: c.mark ? `marked mark-${c.mark}` : "", "data-version": version, "data-mark": c.mark,
        "data-played": c.played, "data-best": c.best, "data-cost": c.cost.toFixed(3),
        "data-true-best": c.true_best, "data-true-cost": c.true_cost.toFixed(3), "data-by": c.by},
      h("td", {}, h("a", {href: replayAt(version)}, whenEl(c)), c.by === "clock" ? h("span", {class: "muted"}, ` (${t("review_by_clock")})`) : null),
      h("td", {}, optionEl(c.played, c.kind)),
      h("td", {}, c.mark ? h("span", {class: `badge mark-${c.mark}`}, t(`mark_${c.mark}`)) : h("span", {class: "muted"}, "—")),
      h("td", {}, c.best === c.played || c.cost < 0.05 ? h("span", {class: "muted"}, t("review_was_best"))
        : [optionEl(c.best, c.kind), " ", h("span", {class: "cost"}, gp(c.cost), " ", t("gp"))]),
      h("td", {}, c.true_best === c.played || c.true_cost < 0.05 ? h("span", {class: "muted"}, t("review_true_same"))
        : [optionEl(c.true_best, c.kind), " ", h("span", {class: "cost"}, gp(c.true_cost), " ", t("gp"))])))));
}

function curveBoxEl() {
  if (!evaluation) return null;
  const marks = review.choices.filter(x => x.choice.seat === seat && x.choice.mark)
    .map(x => ({version: x.version, mark: x.choice.mark}));
  const team = s => [who(seatName(s)), " · ", who(seatName(s + 2))];
  return h("section", {class: "review-curve"}, h("h2", {}, t("review_curve")),
    curveEl(evaluation, {teamName: team, marks, pick: v => { location.href = replayAt(v); }}));
}

function render() {
  const title = h("h1", {id: "review-title"}, t("review_title", {n: deal}));
  const links = h("p", {class: "hint"}, h("a", {href: replayAt(1), id: "replay-link"}, t("replay")), " · ",
    h("a", {href: `/watch/audit.html?table=${encodeURIComponent(table)}&deal=${deal}`}, t("audit")));
  if (failure) {
    fill(main, title, h("p", {class: "error", role: "alert", id: "review-error", "data-rule": failure.rule ?? ""},
      failure.rule === "board_hidden" ? t("review_board_hidden") : failure.rule === "hands_hidden" ? t("review_hands_hidden")
        : failure.rule === "deal_in_progress"
        ? t("review_in_progress") : `${t("error")}: ${failure.message}`), links);
    return;
  }
  if (!review) return;
  if (review.status !== "done") {
    fill(main, title, h("p", {id: "review-status", "data-status": review.status, "aria-live": "polite"},
      review.status === "failed" ? t("review_failed") : t("review_analysing")), links);
    return;
  }
  fill(main, title, links, seatsEl(), lineEl(), legendEl(), curveBoxEl(), h("h2", {}, t("review_choices")), choicesEl(),
       h("p", {class: "hint"}, t("review_how")));
}

async function load() {
  try {
    review = await get(`/tables/${encodeURIComponent(table)}/deals/${deal}/review`);
  } catch (error) {
    failure = error;
    render();
    return;
  }
  if (seat === null) seat = review.seat ?? 0;
  nameOf = await userNames(review.seats.filter(u => u !== "bot"));
  render();
  if (review.status === "analysing" && polls++ < POLLS) { setTimeout(load, POLL_MS); return; }
  if (review.status === "done") await loadCurve();
  main.dataset.loaded = "true";
}

async function loadCurve() {
  evaluation = await dealEvaluation(table, deal).catch(() => null);
  render();
  if (evaluation && evaluation.points.length < evaluation.positions && polls++ < POLLS) {
    setTimeout(loadCurve, POLL_MS);
  }
}

setUp();
onChange(render);
signedIn().then(me => {
  if (!me) { location.href = `/play/?next=${encodeURIComponent(location.pathname + location.search)}`; return; }
  return load();
});
