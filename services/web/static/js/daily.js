// The daily deal of a day and rule profile: its leaderboard (paged by rank, matchpoints or IMPs) and, once the
// set has closed, each board's field of results with links to the replays of the players on the page. Before
// the close the server shows a board's field only to its finishers, and the live leaderboard only to whoever
// has played every board (docs/access.md, board_hidden): the page reads the reader's own boards first and asks
// only for what he may see, says once what is hidden and until when (the reader's own time), and, while the
// day takes boards, invites him to play: his next board, or the one he left unfinished.
import {get, send, signedIn, userNames} from "./api.js";
import {fill, h} from "./cards.js";
import {listText, locale, onChange, setUp, t, tOr} from "./i18n.js";
import {who} from "./bidi.js";
import "./words_watch.js";

const main = document.getElementById("main");
const params = new URLSearchParams(location.search);
const day = params.get("day") || new Date().toISOString().slice(0, 10);
const profile = params.get("profile") || "saudi";
const base = `/daily/${encodeURIComponent(day)}/${encodeURIComponent(profile)}`;
const PAGE = Math.min(500, Math.max(1, Number(params.get("limit")) || 20));

let set = null, page = null, name = () => null, fields = [], failure = null, entry = null, me = null, starting = null;
// What the day's rule keeps from this reader until the close: not asked of the server (it would refuse).
const HIDDEN = Object.freeze({hidden: true});
let scoring = params.get("scoring") === "imps" ? "imps" : "mp";
let after = 0, previous = [];

// A board's table, by the id the daily service gives it (docs/daily.md: daily.<day>.<profile>.<board>.<user>).
const tableOf = (board, userId) => `daily.${day}.${profile}.${board}.${userId}`;
const share = mp => (mp / 10000).toFixed(2);
// A margin with its sign, read left to right in Arabic too (the minus before the number).
const signed = margin => h("bdi", {dir: "ltr"}, margin > 0 ? `+${margin}` : String(margin));
const playerName = id => name(id)?.name ?? id;

// A time as the reader writes it, in his own time zone (named: the day itself is a UTC day).
const when = iso => new Intl.DateTimeFormat(locale(), {year: "numeric", month: "short", day: "numeric", hour: "2-digit",
                                                       minute: "2-digit", timeZoneName: "short"}).format(new Date(iso));
const hiddenByRule = thing => thing === HIDDEN || (thing instanceof Error && thing.rule === "board_hidden");
const finished = () => new Set((entry?.played ?? []).filter(b => b.status === "finished").map(b => b.board));

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
  return h("p", {class: "note hidden-note", id: "hidden-note", "data-rule": "board_hidden", title: t("daily_wait_close")},
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
        h("td", {}, String(r.rank)), h("td", {}, who(name(r.user_id)?.name ?? r.user_id)), h("td", {"data-mp": r.mp}, share(r.mp)),
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
  const players = page?.rows ? page.rows.filter(r => r.boards >= n) : [];
  return h("section", {class: "board-field", id: `board-${n}`, "data-board": n},
    h("h3", {}, `${t("board")} ${n}`),
    ...(field instanceof Error ? [refusal(field)] : [
      h("table", {class: "list field"},
        h("thead", {}, h("tr", {}, h("th", {}, t("margin")), h("th", {}, t("how_many")))),
        h("tbody", {}, field.map(f => h("tr", {"data-margin": f.margin, "data-count": f.count},
          h("td", {}, signed(f.margin)), h("td", {}, String(f.count)))))),
      closed && players.length ? h("p", {}, t("replays_of_page")) : null,
      closed && players.length ? h("ul", {class: "replays"}, players.map(r =>
        h("li", {}, h("a", {href: `/watch/table.html?id=${encodeURIComponent(tableOf(n, r.user_id))}`,
          "data-table": tableOf(n, r.user_id)}, who(playerName(r.user_id)))))) : null,
    ]));
}

// The reader's way into the day while it takes boards: his unfinished board, else his next one (the server opens
// it: POST /daily/{profile}/play), else what he scored; a visitor not signed in is sent to sign in first.
function invitation() {
  if (!set.playable) return null;
  const played = entry?.played ?? [];
  const open = played.find(b => b.status === "playing");
  const tableLink = tid => `/play/table.html?id=${encodeURIComponent(tid)}`;
  let action;
  if (!me) {
    action = h("a", {class: "button", id: "daily-play", href: `/play/?next=${encodeURIComponent(location.pathname + location.search)}`},
      t("daily_sign_in"));
  } else if (open) {
    action = h("a", {class: "button", id: "daily-play", href: tableLink(open.table_id)}, t("daily_continue", {n: open.board}));
  } else if (played.length < set.boards) {
    action = h("button", {type: "button", class: "primary", id: "daily-play", disabled: starting !== null, onclick: async () => {
      starting = "";
      render();
      try {
        location.href = tableLink((await send("POST", `/daily/${encodeURIComponent(profile)}/play`)).table_id);
      } catch (error) { starting = null; failure = error; render(); }
    }}, played.length ? t("daily_next_board", {n: played.length + 1, boards: set.boards}) : t("daily_play"));
  } else {
    action = h("p", {id: "daily-play", class: "ok"}, t("daily_all_played", {boards: set.boards}));
  }
  return h("section", {class: "daily-invite", id: "daily-invite"},
    h("p", {}, t("daily_play_hint", {boards: set.boards})), action,
    played.length ? h("ul", {id: "my-boards"}, played.map(b => h("li", {"data-board": b.board},
      h("a", {href: tableLink(b.table_id)}, `${t("board")} ${b.board}`),
      b.margin === null || b.margin === undefined ? ` — ${t("match_table_live")}` : [" — ", signed(b.margin)]))) : null);
}

// The day as written in the link (YYYY-MM-DD), read left to right in Arabic too.
const titleEl = () => h("h1", {}, `${t("daily")} — `, h("bdi", {dir: "ltr"}, day), ` · ${tOr(`profile_${profile}`, profile)}`);

function render() {
  if (failure) { fill(main, titleEl(), refusal(failure)); return; }
  if (!set || !page) return;
  const closed = set.seed !== null;
  fill(main, 
    titleEl(),
    h("dl", {class: "facts daily-facts"},
      h("dt", {}, t("status")), h("dd", {id: "set-status", "data-closed": String(closed)},
        closed ? t("set_closed") : `${t("set_open")} ${when(set.closes_at)}`),
      h("dt", {}, t("commitment")), h("dd", {}, h("code", {}, set.commitment)),
      closed ? [h("dt", {}, t("seed")), h("dd", {}, h("code", {id: "seed"}, set.seed))] : null),
    invitation(),
    hiddenNote(),
    ...leaderboard(),
    fields.some(f => !hiddenByRule(f)) ? [h("h2", {}, t("boards")),
      h("div", {id: "boards"}, fields.map((f, i) => board(i + 1, f)))] : null);
}

async function load() {
  const closed = set.seed !== null;
  if (!closed && finished().size < set.boards) { page = HIDDEN; render(); return; }
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
    me = await signedIn();
    entry = await get(`${base}/entry`);               // the reader's own boards: what the day shows him before it closes
    await load();
    // Each board's field the reader may see (all once closed, before that the ones he finished); a refusal shown
    // where the board is.
    const closed = set.seed !== null, mine = finished();
    fields = await Promise.all(Array.from({length: set.boards}, (_, i) => closed || mine.has(i + 1)
      ? get(`${base}/boards/${i + 1}/field`).catch(error => error) : HIDDEN));
  } catch (error) { failure = error; }
  render();
  main.dataset.loaded = "true";
})();
