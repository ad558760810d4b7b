// A Balut (dice game) table: whose turn, the dice and throws left, and every player's score sheet, drawn from
// the view the server sends (every sheet and throw is public; throws to come are not in it).
import {h} from "./cards.js";
import {t} from "./i18n.js";

const ROWS = ["fours", "fives", "sixes", "straight", "house", "choice", "balut"];
const PIPS = ["⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];
const THROWS = 3;

function dieEl(value) {
  return h("span", {class: "die", role: "img", "aria-label": `${t("die")} ${value}`, "data-die": value},
    PIPS[value - 1]);
}

function turnEl(v, seatName) {
  const ended = v.phase === "ended";
  const who = v.turn !== null ? v.turn : v.next_seat;
  return h("dl", {class: "facts balut-turn"},
    h("dt", {}, t("round")), h("dd", {id: "balut-round"}, String(v.round)),
    ended ? null : [h("dt", {}, t(v.turn !== null ? "to_throw" : "next_to_throw")),
                    h("dd", {id: "balut-turn", "data-seat": who ?? ""}, who === null ? "—" : seatName(who))],
    h("dt", {}, t("dice")), h("dd", {id: "dice"}, v.throws ? v.dice.map(dieEl) : "—"),
    ended ? null : [h("dt", {}, t("throws_left")), h("dd", {id: "throws-left"}, String(THROWS - v.throws))]);
}

// Before the game's start event (the table just opened) the view has no sheets yet: empty ones, a seat each.
function sheetsOf(v) {
  return v.sheets.length ? v.sheets : v.seats.map((_, seat) => ({seat, rows: {}, total: 0}));
}

function sheetsEl(v, seatName) {
  const sheets = sheetsOf(v);
  const seats = sheets.map(s => s.seat);
  const r = v.result;
  const cell = (text, attrs = {}) => h("td", attrs, text);
  return h("table", {class: "list sheets", id: "sheets"},
    h("thead", {}, h("tr", {}, h("th", {}, t("category")),
      seats.map(s => h("th", {class: v.turn === s ? "turn" : "", "data-seat": s}, seatName(s))))),
    h("tbody", {},
      ROWS.map(row => h("tr", {"data-row": row}, h("th", {}, t(`row_${row}`)), sheets.map(sheet => {
        const written = sheet.rows[row] || [];
        const open = v.profile.fills - written.length;
        return cell(written.length ? written.join(" + ") : "·",
                    {title: `${written.length}/${v.profile.fills}`, class: open ? "open" : "full"});
      }))),
      h("tr", {class: "total"}, h("th", {}, t("total")),
        sheets.map(sheet => cell(String(sheet.total), {"data-total": sheet.total, "data-seat": sheet.seat}))),
      r ? h("tr", {}, h("th", {}, t("final_points")),
        r.points.map((p, s) => cell(String(p), {"data-points": p, "data-seat": s}))) : null,
      r ? h("tr", {}, h("th", {}, t("place")),
        r.places.map((p, s) => cell(r.winners.includes(s) ? `${p} · ${t("winner")}` : String(p)))) : null));
}

export function balutEl(v, seatName) {
  return h("div", {class: "balut", "data-version": v.version, "data-phase": v.phase, id: "game"},
    turnEl(v, seatName), sheetsEl(v, seatName));
}

export function balutScore(v) {
  const profile = v.profile.name.toUpperCase();
  return `${t("balut_game")} (${profile}) · ${t("round")} ${v.round}${v.phase === "ended" ? ` · ${t("ended")}` : ""}`;
}
