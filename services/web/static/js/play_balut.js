// The dice game at my seat: throw, choose the dice to keep (click them, or keys 1-5, then T to throw), and my
// sheet with the rows still open and what the dice would score in each (the server says: would_score); every
// player's sheet below, as spectators see them (balut.js).
import {balutEl} from "./balut.js";
import {h} from "./cards.js";
import {listText, t, tOr} from "./i18n.js";

const PIPS = ["⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];
const THROWS = 3;
let keep = new Set();          // positions of the dice I keep for the next throw
let keptAt = -1;               // the view version ``keep`` was chosen at (a new throw clears it)

function rollAction(v) {
  return v.legal_actions.find(a => a.type === "roll");
}

function diceEl(v, ctx) {
  const mine = v.turn === v.seat;
  const canKeep = mine && v.throws > 0 && rollAction(v);
  return h("div", {class: "dice-row", id: "my-dice", role: "group", "aria-label": t("dice")},
    v.throws ? v.dice.map((value, k) => h("button", {
      type: "button", class: `die-button${keep.has(k) ? " kept" : ""}`, "data-die-index": k, "data-die": value,
      "aria-pressed": String(keep.has(k)), disabled: !canKeep || ctx.busy,
      "aria-label": `${t("die")} ${k + 1}: ${value}${keep.has(k) ? ` (${t("kept")})` : ""}`,
      onclick: () => { if (keep.has(k)) keep.delete(k); else keep.add(k); ctx.rerender(); }},
      PIPS[value - 1])) : h("span", {class: "hint"}, t("no_throw_yet")));
}

function throwEl(v, ctx) {
  const roll = rollAction(v);
  if (!roll || v.turn !== v.seat) return null;
  return h("button", {type: "button", class: "primary", id: "throw", disabled: ctx.busy, "aria-keyshortcuts": "T",
                      onclick: () => ctx.act({type: "roll", keep: v.throws ? [...keep].sort() : []})},
    v.throws ? t("throw_again", {n: THROWS - v.throws}) : t("throw"));
}

function sheetEl(v, ctx) {
  const mine = v.sheets.find(s => s.seat === v.seat);
  if (!mine) return null;
  const scorable = new Set(v.legal_actions.filter(a => a.type === "score").map(a => a.category));
  const rows = Object.keys(mine.rows).length ? Object.keys(mine.rows) : mine.open;
  const playing = v.phase !== "ended";       // what the dice would score, and where to write: while it is played
  return h("table", {class: "list my-sheet", id: "my-sheet"},
    h("thead", {}, h("tr", {}, h("th", {}, t("category")), h("th", {}, t("written")),
      playing ? [h("th", {}, t("would_score")), h("th", {}, "")] : null)),
    h("tbody", {}, rows.map(row => {
      const open = mine.open.includes(row);
      const would = v.would_score?.[row];
      return h("tr", {"data-row": row, class: open ? "open" : "full"},
        h("th", {}, t(`row_${row}`)),
        h("td", {}, (mine.rows[row] || []).join(" + ") || "·"),
        playing ? [h("td", {"data-would": would ?? ""}, open && would !== undefined ? String(would) : "—"),
          h("td", {}, scorable.has(row) ? h("button", {type: "button", class: "write", "data-category": row,
            disabled: ctx.busy, onclick: () => ctx.act({type: "score", category: row})},
            would === 0 ? t("scratch_here") : t("write_here")) : null)] : null);
    })),
    h("tfoot", {}, h("tr", {}, h("th", {}, t("total")), h("td", {colspan: playing ? 3 : 1}, String(mine.total)))));
}

// Each seat as the players call it: "You", a person's name, and the bots told apart by a number when several
// sit (two "Bot (strong)" columns would be no names at all).
function namesOf(v, ctx) {
  const bots = (v.terms?.bots ?? []).map((level, seat) => level ? seat : null).filter(s => s !== null && s !== v.seat);
  return seat => {
    const k = bots.indexOf(seat);
    if (k < 0 || bots.length < 2) return ctx.seatName(seat);
    return t("bot_n", {n: k + 1, level: t(`level_${v.terms.bots[seat]}`)});
  };
}

// The game's end: who won and how — the final points of every player, in their places (ties share one).
function endEl(v, name) {
  const r = v.result;
  if (v.phase !== "ended" || !r) return null;
  const order = r.places.map((place, seat) => ({seat, place, points: r.points[seat]}))
    .sort((a, b) => a.place - b.place || a.seat - b.seat);
  const winners = r.winners.map(name);
  const headline = r.winners.length > 1 ? t("balut_shared_win", {names: listText(winners), points: r.points[r.winners[0]]})
    : r.winners[0] === v.seat ? t("balut_you_won", {points: r.points[v.seat]})
    : t("balut_won_by", {name: winners[0], points: r.points[r.winners[0]]});
  return h("section", {class: "balut-end", id: "balut-end"},
    h("h2", {}, headline),
    h("ol", {class: "standings", id: "standings"}, order.map(o => h("li", {
      class: o.seat === v.seat ? "me" : "", "data-seat": o.seat, "data-place": o.place, "data-points": o.points},
      h("span", {class: "place"}, t("place_n", {n: o.place})), " ", h("bdi", {class: "who"}, name(o.seat)),
      " — ", h("span", {class: "points"}, t("points_n", {n: o.points}))))),
    v.profile.points !== "total" ? h("p", {class: "hint"}, t("balut_points_how")) : null);
}

// A refusal of my action in the page's language, said of me, when the rules name it (the server's words, with
// their seat numbers, only for what the page has no words for).
function refusalEl(ctx) {
  const rule = ctx.refusal?.dataset.rule;
  const key = `balut_refused_${rule}`;
  if (!rule || tOr(key, null) === null) return ctx.refusal;
  return h("p", {class: "error refusal", role: "alert", id: "refusal", "data-rule": rule}, t(key));
}

export function balutPlayEl(v, ctx) {
  if (v.version !== keptAt && (v.turn !== v.seat || v.throws === 0)) keep = new Set();
  keptAt = v.version;
  const name = namesOf(v, ctx);
  const mine = v.turn === v.seat;
  const ended = v.phase === "ended";
  const state = mine ? t("your_turn")
    : v.turn !== null ? t("turn_of", {name: name(v.turn)}) : t("turn_of", {name: name(v.next_seat)});
  return h("div", {class: "balut-play", id: "play-balut", "data-version": v.version, "data-phase": v.phase},
    // A finished game is no live one: it says so once, whatever the stream's state.
    h("div", {class: "scorebar", id: "score"}, h("span", {}, `${t("balut_game")} (${v.profile.name.toUpperCase()})`),
      h("span", {}, `${t("round")} ${v.round}`),
      ended ? h("span", {class: "state finished", id: "live-state"}, t("game_over"))
        : [h("span", {id: "turn-state", class: mine ? "my-turn-now" : ""}, state),
           mine && v.turn !== null ? ctx.clockEl(v.seat) : null, ctx.live]),
    refusalEl(ctx),
    endEl(v, name),
    ended ? null : mine ? h("section", {class: "my-turn", id: "my-turn"},
      h("p", {}, t("throws_left"), `: ${THROWS - v.throws}`, v.throws ? ` · ${t("keep_hint")}` : ""),
      diceEl(v, ctx), throwEl(v, ctx)) : h("section", {class: "dice-now"}, diceEl(v, ctx)),
    ctx.clockNoteEl(),
    sheetEl(v, ctx),
    h("h2", {}, t("all_sheets")),
    balutEl(v, name));
}

// Keys at my turn: 1-5 keep or release a die, T throws.
export function balutKeys(e) {
  const k = Number(e.key);
  if (k >= 1 && k <= 5) document.querySelector(`[data-die-index="${k - 1}"]`)?.click();
  else if (e.key === "t" || e.key === "T") document.getElementById("throw")?.click();
}
