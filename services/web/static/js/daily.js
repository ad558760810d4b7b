// The daily deal of a day and rule profile: its leaderboard (paged by rank, matchpoints or IMPs) and, once the
// set has closed, each board's field of results with links to the replays of the players on the page. Before
// the close the server refuses the fields, and the live leaderboard to whoever has not played every board
// (board_hidden); the page then says once what is hidden and until when (the reader's own time), and shows
// only what the reader may see.
import {get, userNames} from "./api.js";
import {fill, h} from "./cards.js";
import {listText, locale, onChange, setUp, t, tOr} from "./i18n.js";

const main = document.getElementById("main");
const params = new URLSearchParams(location.search);
const day = params.get("day") || new Date().toISOString().slice(0, 10);
const profile = params.get("profile") || "saudi";
const base = `/daily/${encodeURIComponent(day)}/${encodeURIComponent(profile)}`;
const PAGE = Math.min(500, Math.max(1, Number(params.get("limit")) || 20));

let set = null, page = null, name = () => null, fields = [], failure = null;
let scoring = params.get("scoring") === "imps" ? "imps" : "mp";
let after = 0, previous = [];

// A board's table, by the id the daily service gives it (docs/daily.md: daily.<day>.<profile>.<board>.<user>).
const tableOf = (board, userId) => `daily.${day}.${profile}.${board}.${userId}`;
const share = mp => (mp / 10000).toFixed(2);
const who = id => name(id)?.name ?? id;

// A time as the reader writes it, in his own time zone (named: the day itself is a UTC day).
const when = iso => new Intl.DateTimeFormat(locale(), {year: "numeric", month: "short", day: "numeric", hour: "2-digit",
                                                       minute: "2-digit", timeZoneName: "short"}).format(new Date(iso));
const hiddenByRule = thing => thing instanceof Error && thing.rule === "board_hidden";

// A refusal other than the day's rule: said with the rule the server named.
function refusal(error) {
  return h("p", {class: "error refusal", "data-rule": error.rule ?? ""},
    error.rule ? [h("code", {}, error.rule), ` — ${error.message}`] : `${t("error")}: ${error.message}`);
}

// One note for everything the day's rule keeps from this reader until the close (the server's words on hover).
function hiddenNote() {
  const boards = fields.flatMap((f, i) => hiddenByRule(f) ? [i + 1] : []);
  const what = [hiddenByRule(page) ? t("hidden_leaderboard") : null,
                boards.length ? t("hidden_boards", {n: boards.length}) : null].filter(Boolean);
  if (!what.length) return null;
  const example = hiddenByRule(page) ? page : fields[boards[0] - 1];
  return h("p", {class: "note hidden-note", id: "hidden-note", "data-rule": "board_hidden", title: example.message},
    t("daily_hidden", {what: listText(what), time: when(set.closes_at), boards: set.boards}));
}

function leaderboard() {
  if (hiddenByRule(page)) return [];
  const rows = page.rows;
  return [
    h("h2", {}, t("leaderboard")),
    h("div", {class: "tabs"}, ["mp", "imps"].map(s => h("button", {type: "button", "data-scoring": s,
      "aria-pressed": String(s === scoring), onclick: () => { if (s !== scoring) { scoring = s; after = 0; previous = []; load(); } }},
      t(`scoring_${s}`)))),
    rows.length ? h("table", {class: "list", id: "leaderboard", "data-scoring": scoring, "data-after": after},
      h("thead", {}, h("tr", {}, ["rank", "player", "scoring_mp", "scoring_imps", "boards"].map(k => h("th", {}, t(k))))),
      h("tbody", {}, rows.map(r => h("tr", {"data-user": r.user_id},
        h("td", {}, String(r.rank)), h("td", {}, who(r.user_id)), h("td", {"data-mp": r.mp}, share(r.mp)),
        h("td", {}, String(r.imps)), h("td", {}, String(r.boards))))))
      : h("p", {id: "leaderboard"}, t("none")),
    h("div", {class: "controls"},
      h("button", {type: "button", id: "prev-page", disabled: !previous.length,
        onclick: () => { after = previous.pop(); load(); }}, t("previous")),
      h("button", {type: "button", id: "next-page", disabled: page.next_after === null,
        onclick: () => { previous.push(after); after = page.next_after; load(); }}, t("next"))),
  ];
}

function board(n, field) {
  if (hiddenByRule(field)) return null;
  const closed = set.seed !== null;
  const players = page instanceof Error ? [] : page.rows.filter(r => r.boards >= n);
  return h("section", {class: "board-field", id: `board-${n}`, "data-board": n},
    h("h3", {}, `${t("board")} ${n}`),
    ...(field instanceof Error ? [refusal(field)] : [
      h("table", {class: "list field"},
        h("thead", {}, h("tr", {}, h("th", {}, t("margin")), h("th", {}, t("how_many")))),
        h("tbody", {}, field.map(f => h("tr", {"data-margin": f.margin, "data-count": f.count},
          h("td", {}, f.margin > 0 ? `+${f.margin}` : String(f.margin)), h("td", {}, String(f.count)))))),
      closed && players.length ? h("p", {}, t("replays_of_page")) : null,
      closed && players.length ? h("ul", {class: "replays"}, players.map(r =>
        h("li", {}, h("a", {href: `/watch/table.html?id=${encodeURIComponent(tableOf(n, r.user_id))}`,
          "data-table": tableOf(n, r.user_id)}, who(r.user_id))))) : null,
    ]));
}

function render() {
  if (failure) { fill(main, h("h1", {}, `${t("daily")} — ${day} · ${tOr(`profile_${profile}`, profile)}`), refusal(failure)); return; }
  if (!set || !page) return;
  const closed = set.seed !== null;
  fill(main, 
    h("h1", {}, `${t("daily")} — ${day} · ${tOr(`profile_${profile}`, profile)}`),
    h("dl", {class: "facts daily-facts"},
      h("dt", {}, t("status")), h("dd", {id: "set-status", "data-closed": String(closed)},
        closed ? t("set_closed") : `${t("set_open")} ${when(set.closes_at)}`),
      h("dt", {}, t("commitment")), h("dd", {}, h("code", {}, set.commitment)),
      closed ? [h("dt", {}, t("seed")), h("dd", {}, h("code", {id: "seed"}, set.seed))] : null),
    hiddenNote(),
    ...leaderboard(),
    fields.some(f => !hiddenByRule(f)) ? [h("h2", {}, t("boards")),
      h("div", {id: "boards"}, fields.map((f, i) => board(i + 1, f)))] : null);
}

async function load() {
  try {
    page = await get(`${base}/leaderboard?scoring=${scoring}&after=${after}&limit=${PAGE}`);
    name = await userNames(page.rows.map(r => r.user_id));
  } catch (error) {
    if (error.rule === "board_hidden") page = error;       // the server's refusal, shown where the board is
    else failure = error;
  }
  render();
}

setUp();
onChange(render);
(async () => {
  try {
    set = await get(base);
    await load();
    // Each board's field, or the server's refusal of it (before the close: board_hidden).
    fields = await Promise.all(Array.from({length: set.boards}, (_, i) =>
      get(`${base}/boards/${i + 1}/field`).catch(error => error)));
  } catch (error) { failure = error; }
  render();
  main.dataset.loaded = "true";
})();
