// A championship: its bracket drawn a section at a time (SVG: a block of one round's matches and where their
// winners go), a team found by name and its path, standings a page at a time, the tables of a match.
// Nothing is fetched whole, so a 10,240-team field reads as fast as an eight-team one.
import {get} from "./api.js";
import {fill, h} from "./cards.js";
import {onChange, setUp, t, tOr} from "./i18n.js";
import {isolated, who} from "./bidi.js";
import "./words_watch.js";

const SIZE = 8;                    // matches in a section's first column
const PAGE = 100;                  // standings rows per request
const SVG = "http://www.w3.org/2000/svg";
const FOLLOWED = ["losers", "grand final", "grand final reset"];    // stages that are not a tree known ahead
const KNOCKOUT = ["single_elimination", "double_elimination"];
const main = document.getElementById("main");
const params = new URLSearchParams(location.search);
const id = params.get("id");
const view = {
  tab: params.get("tab"), stage: params.get("stage") || "", round: Number(params.get("round")) || 0,
  section: Number(params.get("section")) || 1, team: params.get("team") || "", match: params.get("match") || "",
};
let summary, part, path = null, found = null, chosen = null, standings = [], more = false;
const names = new Map();           // team id -> what people call it, as the server said

const teamName = team => names.get(team) || team;
const narrow = () => main.clientWidth < 640;
const api = (path, query = {}) => get(`/championships/${id}${path}?${new URLSearchParams(
  Object.entries(query).filter(([, v]) => v !== undefined && v !== null && v !== ""))}`);

function remember() {
  const url = new URL(location.href);
  for (const [k, v] of Object.entries(view)) {
    if (v) url.searchParams.set(k, v); else url.searchParams.delete(k);
  }
  history.replaceState(null, "", url);
}

function stageText(stage) {
  const group = /^group (\d+)$/.exec(stage);
  return group ? t("stage_group", {n: group[1]}) : t(`stage_${stage}`);
}

// A round as a fan calls it: the final, the semi-finals and quarter-finals of a tree, else its number.
function roundText(stage, round) {
  const rounds = stage.rounds.map(([r]) => r);
  const left = FOLLOWED.includes(stage.stage) || stage.stage.startsWith("group ") ? -1
    : stage.total_rounds - 1 - rounds.indexOf(round);
  return ["round_final", "round_semi", "round_quarter"][left] ? t(["round_final", "round_semi", "round_quarter"][left])
    : `${t("round")} ${round}`;
}

// A match's score for each team: its games when it was a best of several, else the game points.
function scores(node) {
  if (!node?.games) return ["", ""];
  return (summary.settings.match_games > 1 ? node.games : node.points).map(String);
}

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined && v !== false) el.setAttribute(k, v);
  el.append(...children.flat().filter(c => c !== null && c !== undefined && c !== false));
  return el;
}

// Names longer than their box are cut, measured as drawn (the full name is the box's tooltip); each drawn name
// is isolated, so that a Latin name with digits keeps its order in an Arabic page.
function fitNames(svg) {
  for (const text of svg.querySelectorAll("text.team")) {
    const room = Number(text.dataset.room);
    const full = text.dataset.name;
    let keep = full.length;
    while (keep > 1 && text.getComputedTextLength() > room) text.lastChild.textContent = isolated(`${full.slice(0, --keep)}…`);
  }
}

// The drawing: columns of match boxes, each later match between the two it takes its teams from; the first
// round on the reader's start side (the right in Arabic).
function drawing() {
  const columns = part.section.columns;
  const W = narrow() ? 165 : 220, H = 46, GAP = 26, PITCH = 58;
  const rtl = document.documentElement.dir === "rtl";
  const tops = [];
  columns.forEach((col, c) => tops.push(col.slots.map((slot, k) => {
    if (c === 0 || !slot.feeders.length) return k * PITCH * 2 ** c;
    const from = slot.feeders.map(i => tops[c - 1][i]);
    return (Math.min(...from) + Math.max(...from)) / 2;
  })));
  const width = columns.length * (W + GAP) - GAP;
  const height = Math.max(...tops.flat()) + H + 2;
  const x = c => rtl ? width - W - c * (W + GAP) : c * (W + GAP);
  const lines = columns.flatMap((col, c) => c === 0 ? [] : col.slots.flatMap((slot, k) => slot.feeders.map(i => {
    const x1 = rtl ? x(c - 1) : x(c - 1) + W, x2 = rtl ? x(c) + W : x(c), mid = (x1 + x2) / 2;
    return s("path", {class: "link", d: `M${x1},${tops[c - 1][i] + H / 2} H${mid} V${tops[c][k] + H / 2} H${x2}`});
  })));
  const boxes = columns.flatMap((col, c) => col.slots.map((slot, k) => box(slot.node, x(c), tops[c][k], W, H, rtl)));
  return s("svg", {class: "bracket", id: "bracket", width, height, viewBox: `0 0 ${width} ${height}`,
                   role: "group", "aria-label": t("bracket"), "data-round": part.section.round}, lines, boxes);
}

function box(node, x, y, W, H, rtl) {
  if (!node) {
    return s("g", {class: "match placeholder", transform: `translate(${x},${y})`},
      s("rect", {width: W, height: H, rx: 6}),
      s("text", {x: W / 2, y: H / 2 + 5, "text-anchor": "middle"}, t("to_be_decided")));
  }
  const [sa, sb] = scores(node);
  const row = (team, score, k) => {
    const cls = ["team", team && team === node.winner ? "winner" : "", team && team === view.team ? "found" : "",
                 team ? "" : "bye"].filter(Boolean).join(" ");
    const label = team ? teamName(team) : node.decided === "void" ? "—" : t("bye");
    const baseline = k * H / 2 + H / 4 + 5;
    return [
      team === view.team && team ? s("rect", {class: "found-mark", x: 1, y: k * H / 2 + 1, width: W - 2, height: H / 2 - 2}) : null,
      s("text", {class: cls, "data-team": team || "", "data-room": W - 46, "data-name": label, x: rtl ? W - 8 : 8, y: baseline,
                 "text-anchor": rtl ? "end" : "start"}, s("title", {}, label), isolated(label)),
      s("text", {class: "score", x: rtl ? 8 : W - 8, y: baseline, "text-anchor": rtl ? "start" : "end"}, score)];
  };
  const selected = node.match_id === view.match;
  const g = s("g", {class: `match${selected ? " selected" : ""}`, "data-match": node.match_id, tabindex: 0, role: "button",
                    "data-score": sa ? `${sa} – ${sb}` : "", transform: `translate(${x},${y})`,
                    "aria-label": `${t("match_word")} ${node.match_id}: ${node.team_a ? isolated(teamName(node.team_a)) : t("bye")} `
                      + `${t("versus")} ${node.team_b ? isolated(teamName(node.team_b)) : t("bye")}${sa ? ` ${sa} – ${sb}` : ""}`},
    s("rect", {width: W, height: H, rx: 6}), s("line", {x1: 0, x2: W, y1: H / 2, y2: H / 2}),
    row(node.team_a, sa, 0), row(node.team_b, sb, 1));
  const open = () => { view.match = node.match_id; showMatch(node); };
  g.addEventListener("click", open);
  g.addEventListener("keydown", e => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); open(); } });
  return g;
}

async function loadSection(query) {
  const out = await api("/bracket/section", {...query, size: SIZE, depth: narrow() ? 2 : 4});
  part = out;
  for (const [team, name] of Object.entries(out.names)) names.set(team, name);
  Object.assign(view, {stage: out.section.stage, round: out.section.round, section: out.section.section});
}

// Another round of the stage: the section its matches there come from or go to, so zooming keeps the place.
async function toRound(round) {
  const stage = part.section.stages.find(st => st.stage === view.stage);
  const order = stage.rounds.map(([r]) => r);
  const steps = order.indexOf(round) - order.indexOf(view.round);
  const first = (view.section - 1) * SIZE;
  const position = FOLLOWED.includes(view.stage) ? 0 : steps >= 0 ? first >> steps : first * 2 ** -steps;
  view.match = "";
  await loadSection({stage: view.stage, round, section: Math.floor(position / SIZE) + 1});
  renderBracket();
}

async function toSection(stage, round, section) {
  view.match = "";
  await loadSection({stage, round, section});
  renderBracket();
}

async function goTo(match_id) {
  view.match = match_id;
  await loadSection({match: match_id});
  renderBracket();
  document.querySelector(`#bracket [data-match="${match_id}"]`)?.scrollIntoView({block: "center", inline: "center"});
}

// A team found: its path, and the section where it is (or went out); drawn unless the page is still loading.
async function choose(team, draw = true) {
  chosen = team;
  view.team = team.team_id;
  names.set(team.team_id, team.name);
  path = await api("/bracket", {team: team.team_id});
  for (const [k, v] of Object.entries(path.names)) names.set(k, v);
  found = null;
  if (!draw) return team.last_match && loadSection({match: view.match || team.last_match});
  if (team.last_match) await goTo(team.last_match); else renderBracket();
}

async function search(wanted) {
  view.team = "";
  path = chosen = null;
  const folded = wanted.toLowerCase();
  found = wanted ? await api("/teams", {q: wanted, limit: 10}) : [];
  const exact = found.find(f => f.team_id.toLowerCase() === folded || f.name.toLowerCase() === folded);
  if (exact || found.length === 1) return choose(exact || found[0]);
  renderBracket();
}

function pathEl() {
  if (found && !found.length) return h("p", {class: "error", id: "path"}, t("no_team"));
  if (found) {
    return h("section", {id: "found"}, h("p", {}, t("teams_found", {n: found.length})),
      h("ul", {}, found.map(f => h("li", {}, h("button", {type: "button", onclick: () => choose(f)}, who(f.name))))));
  }
  if (!path) return null;
  const team = view.team;
  return h("section", {id: "path"}, h("h3", {}, `${t("path_of")} `, who(teamName(team))),
    h("ol", {}, path.nodes.map(n => {
      const other = n.team_a === team ? n.team_b : n.team_a;
      const [sa, sb] = scores(n);
      const mine = n.team_a === team ? [sa, sb] : [sb, sa];
      const how = n.winner === team ? t("path_won") : n.winner ? t("path_lost") : n.decided ? t(`decided_${n.decided}`) : t("path_to_play");
      return h("li", {"data-match": n.match_id},
        h("a", {href: "#", onclick: e => { e.preventDefault(); goTo(n.match_id); }},
          `${stageText(n.stage)} · ${t("round")} ${n.round}`),
        ` — ${t("versus")} `, other ? who(teamName(other)) : t("bye"), `${mine[0] ? ` · ${mine[0]} – ${mine[1]}` : ""} · ${how}`);
    })));
}

async function showMatch(node) {
  renderBracket();
  const panel = document.getElementById("match-panel");
  const [sa, sb] = scores(node);
  const facts = h("p", {}, `${stageText(node.stage)} · ${t("round")} ${node.round} · ${node.match_id}`
    + `${node.decided && node.decided !== "played" ? ` · ${t(`decided_${node.decided}`)}` : ""}`);
  const teams = h("p", {class: "teams"}, h("strong", {}, node.team_a ? who(teamName(node.team_a)) : t("bye")),
    ` ${sa ? `${sa} – ${sb}` : t("versus")} `, h("strong", {}, node.team_b ? who(teamName(node.team_b)) : t("bye")),
    node.winner ? [` · ${t("winner")}: `, who(teamName(node.winner))] : "");
  fill(panel, h("h3", {}, t("match_title")), facts, teams);
  const [match] = await api("/matches", {match: node.match_id});
  const tables = match?.tables || [];
  if (view.match !== node.match_id) return;               // another match was opened meanwhile
  panel.append(...(tables.length
    ? [h("h4", {}, t("match_tables")), h("ul", {class: "match-tables", id: "match-tables"}, await Promise.all(tables.map(tableItem)))]
    : [h("p", {class: "muted"}, t("no_tables"))]));
  panel.scrollIntoView({block: "nearest"});
}

// A table of the match and where it leads: its live view while it is played, its replay, the audit of each
// finished deal. Its deals are asked as the reader: the server refuses them while the table's boards are still
// played elsewhere (a duplicate round), and then the table is said to be hidden, with the server's reason.
async function tableItem(tb) {
  const deals = await get(`/tables/${encodeURIComponent(tb.table_id)}/deals`).catch(error => error);
  const hidden = deals instanceof Error;
  const live = tb.status === "live";
  const at = `/watch/table.html?id=${encodeURIComponent(tb.table_id)}`;
  return h("li", {"data-table": tb.table_id, "data-status": tb.status},
    h("strong", {}, `${t("table")} ${tb.game_no}`),
    h("span", {class: `table-state${live ? " live" : ""}`, title: hidden ? deals.message : null},
      hidden ? t("match_table_hidden") : tOr(`match_table_${tb.status}`, tb.status)),
    hidden ? null : [
      live ? h("a", {href: at, class: "live-link"}, t("live_view")) : null,
      h("a", {href: `${at}&at=1`, class: "replay-link"}, t("replay_link")),
      deals.filter(d => d.finished && d.contract).map(d => h("a", {class: "audit-link", "data-deal": d.deal_no,
        href: `/watch/audit.html?table=${encodeURIComponent(tb.table_id)}&deal=${d.deal_no}`}, t("audit_deal", {n: d.deal_no})))]);
}

function renderBracket() {
  remember();
  const sec = part.section;
  const stage = sec.stages.find(st => st.stage === sec.stage);
  const first = (sec.section - 1) * sec.size + 1;
  const inRound = stage.rounds.find(([r]) => r === sec.round)[1];
  const searchForm = h("form", {class: "search", role: "search", onsubmit: e => {
      e.preventDefault();
      search(e.target.elements.team.value.trim()).catch(shout);
    }},
    h("label", {for: "team"}, t("search_team")),
    h("input", {id: "team", name: "team", value: chosen?.name ?? view.team, autocomplete: "off"}),
    h("button", {type: "submit"}, t("find")));
  const stages = sec.stages.length > 1 ? h("label", {class: "stage-pick"}, `${t("stage")} `,
    h("select", {id: "stage", onchange: e => toSection(e.target.value, undefined, 1).catch(shout)},
      sec.stages.map(st => h("option", {value: st.stage, selected: st.stage === sec.stage}, stageText(st.stage))))) : null;
  fill(document.getElementById("tab-body"),
    searchForm, pathEl(), stages,
    h("nav", {class: "rounds", "aria-label": t("rounds")}, stage.rounds.map(([r]) =>
      h("button", {type: "button", "aria-pressed": String(r === sec.round), "data-round": r,
                   onclick: () => toRound(r).catch(shout)}, roundText(stage, r)))),
    sec.sections > 1 ? h("nav", {class: "sections", "aria-label": t("section")},
      h("button", {type: "button", id: "earlier", disabled: sec.section === 1,
                   onclick: () => toSection(sec.stage, sec.round, sec.section - 1).catch(shout)}, t("previous")),
      h("span", {id: "section-label"}, t("matches_of", {from: first, to: Math.min(first + sec.size - 1, inRound), n: inRound})),
      h("button", {type: "button", id: "later", disabled: sec.section === sec.sections,
                   onclick: () => toSection(sec.stage, sec.round, sec.section + 1).catch(shout)}, t("next"))) : null,
    h("div", {class: "bracket-frame"}, drawing()),
    h("section", {id: "match-panel", class: "match-panel"}));
  fitNames(document.getElementById("bracket"));
}

// A knock-out ranks a team by how far it went: the teams knocked out in the same round share a place (the two
// semi-finalists who lost are both third), and Buchholz, a Swiss tie-break, is no column of it.
function knockoutRanks(rows) {
  const key = r => `${r.wins}/${r.losses}`;
  const better = (a, b) => a.wins > b.wins || (a.wins === b.wins && a.losses < b.losses);
  return rows.map(r => [rows.filter(o => better(o, r)).length + 1, r]).sort((a, b) => a[0] - b[0] || 0)
    .map(([rank, r]) => ({...r, rank, tied: rows.some(o => o !== r && key(o) === key(r))}));
}

async function moreStandings() {
  const rows = await api("/standings", {offset: standings.length, limit: PAGE});
  standings = standings.concat(rows);
  more = rows.length === PAGE;
}

function renderStandings() {
  remember();
  const knockout = KNOCKOUT.includes(summary.settings.format);
  const cols = knockout ? ["rank", "team", "wins", "losses", "byes", "gp_diff"]
    : ["rank", "team", "points", "wins", "losses", "byes", ...(summary.settings.format === "swiss" ? ["buchholz"] : []), "gp_diff"];
  const rows = knockout ? knockoutRanks(standings) : standings;
  const cell = (r, c) => ({rank: `${r.rank}${r.tied ? "=" : ""}`, team: who(r.name || r.team_id), points: r.points, wins: r.wins,
    losses: r.losses, byes: r.byes, buchholz: r.buchholz, gp_diff: r.game_point_difference})[c];
  fill(document.getElementById("tab-body"),
    rows.length ? h("table", {class: "list", id: "standings", "data-format": summary.settings.format},
      h("thead", {}, h("tr", {}, cols.map(c => h("th", {"data-col": c}, t(c))))),
      h("tbody", {}, rows.map(r => h("tr", {"data-team": r.team_id}, cols.map(c => h("td", {}, c === "team" ? cell(r, c) : String(cell(r, c))))))))
      : h("p", {class: "muted"}, t("no_standings")),
    more ? h("button", {type: "button", id: "more", onclick: () => moreStandings().then(renderStandings).catch(shout)},
      t("show_more_teams")) : null);
}

function render() {
  if (!summary) return;
  const s = summary;
  const tabs = part ? ["bracket", "standings"] : ["standings"];
  if (!tabs.includes(view.tab)) view.tab = ["swiss", "round_robin"].includes(s.settings.format) ? "standings" : tabs[0];
  fill(main,
    h("h1", {}, who(s.name)),
    h("p", {class: "facts"}, `${t("format")}: ${t(`format_${s.settings.format}`)} · ${t("status")}: ${t(`status_${s.status}`)} · `
      + `${t("teams")}: ${s.team_count}`, s.champion ? [` · ${t("champion")}: `, who(s.names[s.champion] || s.champion)] : ""),
    h("nav", {class: "tabs"}, tabs.map(tab => h("button", {type: "button", "aria-pressed": String(tab === view.tab),
      onclick: () => { view.tab = tab; render(); }}, t(tab)))),
    h("div", {id: "tab-body"}));
  if (view.tab === "bracket") renderBracket(); else renderStandings();
  // A link to a match (a player's results, a shared link) opens its panel: its teams and tables.
  const linked = view.tab === "bracket" && view.match && part.section.columns.flatMap(c => c.slots)
    .map(slot => slot.node).find(node => node?.match_id === view.match);
  if (linked) showMatch(linked).catch(shout);
}

function shout(error) {
  fill(document.getElementById("tab-body") || main, h("p", {class: "error"}, `${t("error")}: ${error.message}`));
}

async function load() {
  summary = await get(`/championships/${id}?teams=false`);
  for (const [k, v] of Object.entries(summary.names)) names.set(k, v);
  // The section the link names (a match, or a stage, round and section), else the first; none before the draw.
  const asked = view.match ? {match: view.match}
    : {...(view.stage ? {stage: view.stage} : {}), ...(view.round ? {round: view.round} : {}), section: view.section};
  const bracketed = loadSection(asked).catch(error => {
    if (error.status === 404) return loadSection({});          // a stale link: the bracket's start instead
    if (error.status !== 409) throw error;
  });
  await Promise.all([bracketed, moreStandings()]);
  if (view.team && part) {
    const team = (await api("/teams", {q: view.team, limit: 10})).find(f => f.team_id === view.team);
    if (team) await choose(team, false); else view.team = "";
  }
  render();
}

setUp();
onChange(render);
load().catch(error => fill(main, h("p", {class: "error"}, `${t("error")}: ${error.message}`)));
