// A championship: its bracket by round and section, a team's path, standings, links to the match tables.
import {get, userNames} from "./api.js";
import {fill, h} from "./cards.js";
import {onChange, setUp, t} from "./i18n.js";
import "./words_watch.js";

const PER_SECTION = 32;
const main = document.getElementById("main");
const params = new URLSearchParams(location.search);
const id = params.get("id");
const view = {
  tab: params.get("tab"), round: Number(params.get("round")) || 1, section: Number(params.get("section")) || 1,
  team: params.get("team") || "", match: params.get("match") || "",
};
let summary, bracket, standings, rounds = new Map(), byRound = new Map(), nameOf = () => undefined;
let teamNames = new Map();         // team id -> what people call it (its name, else its players)
const teamName = team => teamNames.get(team) || team;
const KNOCKOUT = ["single_elimination", "double_elimination"];
const matchTables = new Map();     // round -> Map(match_id -> tables)

function remember() {
  const url = new URL(location.href);
  for (const [k, v] of Object.entries(view)) {
    if (v) url.searchParams.set(k, v); else url.searchParams.delete(k);
  }
  history.replaceState(null, "", url);
}

async function tablesOf(round) {
  if (!matchTables.has(round)) {
    const matches = await get(`/championships/${id}/matches?round=${round}`);
    matchTables.set(round, new Map(matches.map(m => [m.match_id, m.tables])));
  }
  return matchTables.get(round);
}

function teamCell(team, winner) {
  if (!team) return h("span", {class: "team bye"}, t("bye"));
  return h("span", {class: ["team", team === winner ? "winner" : "", team === view.team ? "found" : ""].join(" "),
                    "data-team": team, title: team}, teamName(team));
}

const STAGES = new Set(["main", "winners", "losers", "grand final", "grand final reset", "swiss", "round robin", "duplicate"]);
function stageText(stage) {
  const group = /^group (\d+)$/.exec(stage);
  return group ? t("stage_group", {n: group[1]}) : STAGES.has(stage) ? t(`stage_${stage}`) : stage;
}

// A played match's score: its games when it was a best of several, else the game points.
function scoreText(node) {
  if (!node.games) return "";
  const [a, b] = summary.settings.match_games > 1 ? node.games : node.points;
  return `${a} – ${b}`;
}

function matchEl(node, tables) {
  const links = (tables || []).map(tb => h("a", {href: `/watch/table.html?id=${tb.table_id}`, class: "table-link"},
                                           `${t("table")} ${tb.game_no}`));
  return h("li", {class: `match${node.match_id === view.match ? " selected" : ""}`, id: `m-${node.match_id}`,
                  "data-match": node.match_id},
    h("div", {class: "match-head"}, h("span", {class: "match-id"}, node.match_id),
      h("span", {class: "stage"}, [stageText(node.stage), node.decided && node.decided !== "played"
        ? t(`decided_${node.decided}`) : ""].filter(Boolean).join(" · "))),
    h("div", {class: "teams"}, teamCell(node.team_a, node.winner),
      h("span", {class: "vs score", "data-score": scoreText(node)}, scoreText(node) || "—"),
      teamCell(node.team_b, node.winner)),
    links.length ? h("div", {class: "links"}, links) : null);
}

function goTo(match_id) {
  const index = rounds.get(match_id);
  if (!index) return;
  view.round = index.round;
  view.section = Math.floor(index.position / PER_SECTION) + 1;
  view.match = match_id;
  renderBracket().then(() => document.getElementById(`m-${match_id}`)?.scrollIntoView({block: "center"}));
}

function pathEl() {
  if (!view.team) return null;
  const path = bracket.paths[view.team];
  if (!path) return h("p", {class: "error", id: "path"}, t("no_team"));
  return h("section", {id: "path"}, h("h3", {}, `${t("path_of")} ${teamName(view.team)}`),
    h("ol", {}, path.map(match_id => {
      const n = byRound.get(rounds.get(match_id).round)[rounds.get(match_id).position];
      const other = n.team_a === view.team ? n.team_b : n.team_a;
      return h("li", {"data-match": match_id},
        h("a", {href: "#", onclick: e => { e.preventDefault(); goTo(match_id); }},
          `${t("round")} ${n.round}: ${match_id}`),
        ` — ${other ? teamName(other) : t("bye")}${scoreText(n) ? ` · ${scoreText(n)}` : ""}`
        + `${n.winner ? ` · ${t("winner")}: ${teamName(n.winner)}` : ""}`);
    })));
}

async function renderBracket() {
  remember();
  const roundNumbers = [...byRound.keys()].sort((a, b) => a - b);
  const nodes = byRound.get(view.round) || [];
  const sections = Math.max(1, Math.ceil(nodes.length / PER_SECTION));
  view.section = Math.min(view.section, sections);
  const shown = nodes.slice((view.section - 1) * PER_SECTION, view.section * PER_SECTION);
  const tables = await tablesOf(view.round).catch(() => new Map());
  const search = h("form", {class: "search", role: "search", onsubmit: e => {
      e.preventDefault();
      const wanted = e.target.elements.team.value.trim();
      const folded = wanted.toLowerCase();
      view.team = Object.keys(bracket.paths).find(k => k.toLowerCase() === folded
        || teamName(k).toLowerCase() === folded) ?? wanted;
      const path = bracket.paths[view.team];
      if (path) goTo(path[path.length - 1]); else renderBracket();
    }},
    h("label", {for: "team"}, t("search_team")),
    h("input", {id: "team", name: "team", value: view.team, list: "team-ids", autocomplete: "off"}),
    h("button", {type: "submit"}, t("find")));
  fill(document.getElementById("tab-body"), 
    search, pathEl(),
    h("nav", {class: "rounds", "aria-label": t("rounds")}, roundNumbers.map(r =>
      h("button", {type: "button", "aria-pressed": String(r === view.round), "data-round": r,
                   onclick: () => { view.round = r; view.section = 1; view.match = ""; renderBracket(); }},
        `${t("round")} ${r}`))),
    sections > 1 ? h("nav", {class: "sections", "aria-label": t("section")},
      Array.from({length: sections}, (_, k) => h("button", {type: "button", "aria-pressed": String(k + 1 === view.section),
          onclick: () => { view.section = k + 1; renderBracket(); }},
        `${k * PER_SECTION + 1}–${Math.min((k + 1) * PER_SECTION, nodes.length)}`))) : null,
    h("ol", {class: "matches", id: "bracket", "data-round": view.round}, shown.map(n => matchEl(n, tables.get(n.match_id)))));
}

// A knock-out ranks a team by how far it went: the teams knocked out in the same round share a place (the two
// semi-finalists who lost are both third), and Buchholz, a Swiss tie-break, is no column of it.
function knockoutRanks(rows) {
  const key = r => `${r.wins}/${r.losses}`;
  const better = (a, b) => a.wins > b.wins || (a.wins === b.wins && a.losses < b.losses);
  return rows.map(r => [rows.filter(o => better(o, r)).length + 1, r]).sort((a, b) => a[0] - b[0] || 0)
    .map(([rank, r]) => ({...r, rank, tied: rows.some(o => o !== r && key(o) === key(r))}));
}

function renderStandings() {
  remember();
  const knockout = KNOCKOUT.includes(summary.settings.format);
  const cols = knockout ? ["rank", "team", "wins", "losses", "byes", "gp_diff"]
    : ["rank", "team", "points", "wins", "losses", "byes", ...(summary.settings.format === "swiss" ? ["buchholz"] : []), "gp_diff"];
  const rows = knockout ? knockoutRanks(standings) : standings;
  const cell = (r, c) => ({rank: `${r.rank}${r.tied ? "=" : ""}`, team: teamName(r.team_id), points: r.points, wins: r.wins,
    losses: r.losses, byes: r.byes, buchholz: r.buchholz, gp_diff: r.game_point_difference})[c];
  fill(document.getElementById("tab-body"), h("table", {class: "list", id: "standings", "data-format": summary.settings.format},
    h("thead", {}, h("tr", {}, cols.map(c => h("th", {"data-col": c}, t(c))))),
    h("tbody", {}, rows.map(r => h("tr", {"data-team": r.team_id}, cols.map(c => h("td", {}, String(cell(r, c)))))))));
}

function render() {
  if (!summary) return;
  const s = summary;
  const tabs = byRound.size ? ["bracket", "standings"] : ["standings"];
  if (!tabs.includes(view.tab)) view.tab = ["swiss", "round_robin"].includes(s.settings.format) ? "standings" : tabs[0];
  const players = new Map(s.teams.map(tm => [tm.team_id, tm.players.map(p => nameOf(p)?.name ?? p).join(" & ")]));
  teamNames = new Map(s.teams.map(tm => [tm.team_id, tm.name || (s.teams.length <= 200 ? players.get(tm.team_id) : "")]));
  fill(main, 
    h("h1", {}, s.name),
    h("p", {class: "facts"}, `${t("format")}: ${t(`format_${s.settings.format}`)} · ${t("status")}: ${t(`status_${s.status}`)} · `
      + `${t("teams")}: ${s.teams.length}${s.champion ? ` · ${t("champion")}: ${teamName(s.champion)}` : ""}`),
    h("datalist", {id: "team-ids"}, s.teams.slice(0, 2000).map(tm => h("option", {value: tm.team_id}, players.get(tm.team_id)))),
    h("nav", {class: "tabs"}, tabs.map(tab => h("button", {type: "button", "aria-pressed": String(tab === view.tab),
      onclick: () => { view.tab = tab; render(); }}, t(tab)))),
    h("div", {id: "tab-body"}));
  if (view.tab === "bracket") renderBracket(); else renderStandings();
}

async function load() {
  [summary, bracket, standings] = await Promise.all([get(`/championships/${id}`), get(`/championships/${id}/bracket`),
                                                    get(`/championships/${id}/standings`)]);
  for (const n of bracket.nodes) {
    if (!byRound.has(n.round)) byRound.set(n.round, []);
    rounds.set(n.match_id, {round: n.round, position: byRound.get(n.round).length});
    byRound.get(n.round).push(n);
  }
  if (summary.teams.length <= 200) nameOf = await userNames(summary.teams.flatMap(tm => tm.players));
  render();
}

setUp();
onChange(render);
load().catch(error => fill(main, h("p", {class: "error"}, `${t("error")}: ${error.message}`)));
