// The organiser console (/organise/): my championships and a new one; one championship (?id=C): its teams
// imported from a CSV file (every bad line named, nothing stored), registration closed, the committed draw
// checked in the browser, rounds started, the live monitor (a count per state, what needs me first, filters,
// search, pages, forfeits from there) and the exports. Every action is one API request, refused in place.
import {download, get, send, sendText, signedIn} from "./api.js";
import {cardEl, fill, h, suitName} from "./cards.js";
import {listText, onChange, setUp, t} from "./i18n.js";
import {whenText} from "./terms.js";
import "./words_play.js";
import "./words_organise.js";

const main = document.getElementById("main");
const id = new URLSearchParams(location.search).get("id");
const PROFILES = {baloot: ["saudi", "belote_classic", "belote_declarations"], balut: ["stc", "ibf"]};
const FORMATS = ["single_elimination", "groups_knockout", "double_elimination", "swiss", "round_robin", "duplicate"];
const STATES = ["waiting_check_in", "waiting", "playing", "stalled", "disputed", "finished"];
const PAGE = 50;
let me = null, list = null, champ = null, mon = null, refusal = null, notice = null;
let filter = {state: null, q: "", after: -1, pages: []};
let fileCheck = null;        // {ok, teams, errors, error_count}: the last answer about the chosen file
let seedCheck = null;        // whether sha256(seed) equals the published commitment (checked here)
let proposals = null;        // teams players proposed, not registered yet
let profiles = null;         // GET /profiles: each game's profiles with their switches
let armed = null;            // the key of the button clicked once (askOnce): its next click does it
let finishing = false;       // the Finish dialog is open
let hooks = {endpoints: null, open: null, deliveries: null, secret: null};   // the webhooks panel
let fairplay = null;         // GET /championships/{id}/fairplay: the players judged, the most suspicious first
let pairings = null;         // GET /championships/{id}/pairings: the next round's, before it starts
let referees = null;         // GET /championships/{id}/referees
let refereeAsked = "";       // the login or name last given to the referees' form
let pairingsMoment = "";     // the championship's moment the pairings were read at (follow reads them again after)

// A button for an action that cannot be undone (a forfeit, a withdrawal, a bot for a seat): the first click
// asks, the second on the same button does it. ``key`` names it among the page's buttons.
function askOnce(key, label, attrs, then) {
  const sure = armed === key;
  return h("button", {type: "button", ...attrs, class: `${attrs.class}${sure ? " armed" : ""}`, "aria-pressed": String(sure),
                      onclick: () => {
                        if (!sure) { armed = key; render(); return; }
                        armed = null;
                        act(then);
                      }}, sure ? t("confirm_action", {what: label}) : label);
}

const enc = encodeURIComponent;
const base = () => `/championships/${enc(id)}`;
const commandId = () => crypto.randomUUID();

function say(text, kind = "ok") { notice = {text, kind}; render(); }

// ``where``: the panel whose answer it is (its refusal is said there, beside the control, not at the page's
// top); ``words``: the refusal in the page's language, when this action has words for it.
async function act(what, after = load, where = null, words = () => null) {
  refusal = null;
  notice = null;                            // the last answer goes: the next one says this action's
  render();
  try {
    await what();
    notice = {text: t("done"), kind: "ok", where};
  } catch (error) {
    refusal = {rule: error.rule ?? "", text: words(error) ?? error.message, where};
  }
  await after();
}

function noticeEl(where = null) {
  if (refusal && (refusal.where ?? null) === where)
    return h("p", {class: "error", role: "alert", id: where ? `${where}-refusal` : "refusal", "data-rule": refusal.rule},
      refusal.rule ? h("code", {}, refusal.rule) : null, refusal.rule ? " — " : "", refusal.text);
  return notice && (notice.where ?? null) === where
    ? h("p", {class: notice.kind, role: "status", id: where ? `${where}-notice` : "notice"}, notice.text) : null;
}

// A table's cells, each labelled with its column's heading (data-label): on a phone each row is a card whose
// values say what they are (app.css), where a wide table would be read sideways or not at all.
function labelled(table) {
  const heads = [...table.tHead.rows[0].cells].map(th => th.textContent);
  for (const row of table.tBodies[0].rows) {
    [...row.cells].forEach((cell, k) => {
      if (!cell.dataset.label && heads[k] && cell.colSpan === 1) cell.dataset.label = heads[k];
      if (["—", ""].includes(cell.textContent.trim())) cell.classList.add("empty");    // a card leaves it out
    });
  }
  return table;
}

// ---- the list, and a new championship ----

function field(label, input) { return h("p", {class: "field"}, h("label", {for: input.id}, label), input); }

function select(fieldId, options, chosen) {
  return h("select", {id: fieldId, name: fieldId}, options.map(([value, label]) =>
    h("option", {value, selected: value === chosen}, label)));
}

function createEl() {
  return h("form", {id: "new-championship", class: "card-form", onsubmit: e => {
    e.preventDefault();
    const f = e.target.elements;
    const body = {command_id: commandId(), name: f.name.value, format: f.format.value, game: f.game.value,
                  profile: f.profile.value, switches: changedSwitches(f.game.value, f.profile.value),
                  match_games: Number(f.best_of.value), seeding: f.seeding.value,
                  bot_pace_seconds: Number(f.pace.value)};
    if (f.check_in.value) body.check_in_seconds = Number(f.check_in.value);
    if (f.clock.value) { body.turn_seconds = Number(f.clock.value); body.on_timeout = f.on_timeout.value; }
    if (f.target.value) body.game_target = Number(f.target.value);
    const every = f.every.value === "manual" ? null : Number(f.every.value);
    if (f.first_round.value) {            // the workers run it: registration closes and round 1 starts then
      const first = new Date(f.first_round.value);
      body.schedule = Array.from({length: every ? 14 : 1}, (_, k) =>
        ({round: k + 1, starts_at: new Date(first.getTime() + k * every * 60_000).toISOString()}));
    } else if (every === 0) {
      // Round 1 is the organiser's to start; from round 2 on the workers start each round once the last one
      // is decided (a first slot for round 2, due from now: services/workers/schedules.py).
      body.schedule = [{round: 2, starts_at: new Date().toISOString()}];
    } else if (every) {                   // a spacing needs a time to count from
      refusal = {rule: "", text: t("spacing_needs_round_1"), where: "create"};
      render();
      return;
    }
    body.hands_policy = f.hands.value;
    body.delay_seconds = f.hands.value === "always" ? 1800 : Number(f.delay.value);
    act(async () => { const r = await send("POST", "/championships", body);
                      location.href = `/organise/?id=${enc(r.championship_id)}`; });
  }},
  h("h2", {}, t("new_championship")),
  field(t("name"), h("input", {id: "name", name: "name", required: true, maxlength: 80})),
  field(t("format"), select("format", FORMATS.map(f => [f, t(`format_${f}`)]), "single_elimination")),
  field(t("game"), h("select", {id: "game", name: "game", onchange: e => {     // the rules the game has
    fill(document.getElementById("profile"), PROFILES[e.target.value].map(p => h("option", {value: p}, t(`profile_${p}`))));
    fill(document.getElementById("switches"), switchesEl(e.target.value, PROFILES[e.target.value][0]));
  }}, [["baloot", t("game_baloot")], ["balut", t("game_balut")]].map(([value, label]) => h("option", {value}, label)))),
  field(t("profile"), h("select", {id: "profile", name: "profile", onchange: e => fill(document.getElementById("switches"),
    switchesEl(document.getElementById("game").value, e.target.value))},
    PROFILES.baloot.map(p => h("option", {value: p, selected: p === "saudi"}, t(`profile_${p}`))))),
  h("details", {class: "terms-box"}, h("summary", {}, t("switches_label")),
    h("div", {id: "switches"}, switchesEl("baloot", "saudi"))),
  field(t("best_of"), select("best_of", [1, 3, 5, 7].map(n => [String(n), String(n)]), "1")),
  field(t("seeding"), select("seeding", [["draw", t("seeding_draw")], ["rating", t("seeding_rating")],
                                         ["manual", t("seeding_manual")]], "draw")),
  field(t("turn_clock"), select("clock", [["", t("no_clock")], ["30", t("seconds", {n: 30})],
                                          ["60", t("seconds", {n: 60})], ["120", t("minutes", {n: 2})]], "60")),
  field(t("on_timeout"), select("on_timeout", ["auto_play", "bot", "forfeit"].map(r => [r, t(`timeout_${r}`)]), "auto_play")),
  field(t("target_label"), h("input", {id: "target", name: "target", type: "number", min: 1, max: 10000,
                                       placeholder: "152", inputmode: "numeric"})),
  field(t("first_round_at"), h("input", {id: "first_round", name: "first_round", type: "datetime-local"})),
  h("p", {class: "hint"}, t("schedule_hint")),
  field(t("rounds_every"), select("every", [["0", t("at_once")], ["manual", t("when_i_start_them")], ["30", t("every_time", {time: t("minutes", {n: 30})})],
                                            ["60", t("every_time", {time: t("minutes", {n: 60})})],
                                            ["1440", t("every_time", {time: t("days", {n: 1})})]], "0")),
  field(t("check_in_window"), select("check_in", [["", t("no_check_in")], ["300", t("minutes", {n: 5})],
                                                  ["900", t("minutes", {n: 15})]], "")),
  field(t("spectators_see"), select("hands", [["after_deal", t("hands_after_deal")], ["never", t("hands_never")],
                                               ["always", t("hands_always")]], "after_deal")),
  field(t("spectators_delay"), select("delay", [["0", t("no_delay")], ["60", t("minutes", {n: 1})],
                                                ["300", t("minutes", {n: 5})]], "0")),
  field(t("bot_pace_label"), select("pace", [["0", "0"], ["1", t("seconds", {n: 1})]], "1")),
  h("button", {type: "submit", class: "primary"}, t("create")));
}

// The chosen profile's switches, each at its value: a box, a number (empty: none), or a choice. The target
// has its own field (the game target).
function profileSwitches(game, name) {
  return (profiles?.[game] ?? []).find(p => p.name === name)?.switches.filter(s => s.name !== "target") ?? [];
}

function switchesEl(game, name) {
  return profileSwitches(game, name).map(s => {
    const id = `switch-${s.name}`;
    const label = h("label", {for: id}, s.name.replaceAll("_", " "));
    if (s.kind === "bool") return h("p", {class: "field switch"}, h("input", {type: "checkbox", id, checked: s.value === true,
                                                                           "data-switch": s.name}), " ", label);
    if (s.kind === "choice") return h("p", {class: "field switch"}, label, h("select", {id, "data-switch": s.name},
      s.choices.map(c => h("option", {value: c, selected: c === s.value}, c.replaceAll("_", " ")))));
    return h("p", {class: "field switch"}, label, h("input", {type: "number", id, "data-switch": s.name, step: 1,
      value: s.value ?? "", placeholder: s.optional ? t("none_value") : ""}));
  });
}

// Only the switches the organiser changed are sent: the profile is the rest.
function changedSwitches(game, name) {
  const out = {};
  for (const s of profileSwitches(game, name)) {
    const el = document.getElementById(`switch-${s.name}`);
    if (!el) continue;
    const value = s.kind === "bool" ? el.checked : s.kind === "choice" ? el.value
      : el.value === "" ? (s.optional ? null : s.value) : Number(el.value);
    if (value !== s.value) out[s.name] = value;
  }
  return out;
}

function listEl() {
  return [h("h1", {}, t("my_championships")), noticeEl(),
    list.length ? h("ul", {class: "list", id: "championships"}, list.map(c => h("li", {"data-championship": c.championship_id},
      h("a", {href: `/organise/?id=${enc(c.championship_id)}`}, h("strong", {}, c.name)),
      ` · ${t(`format_${c.format}`)} · ${t(`status_${c.status}`)} · ${t("teams_count", {n: c.teams})}`
      + (c.rounds ? ` · ${t("rounds_count", {n: c.rounds})}` : ""))))
      : h("p", {class: "hint"}, t("no_organised_championships")),
    noticeEl("create"), createForm ??= createEl()];
}

// The new championship's form is made once (and again in another language): a redraw after a refusal keeps
// what the organiser filled in.
let createForm = null;

// ---- one championship ----

function teamName(teamId) {
  if (!teamId) return t("bye_word");
  return champ.teams.find(x => x.team_id === teamId)?.name || teamId;
}

function importEl() {
  const open = champ.status === "registration";
  return h("section", {class: "panel", id: "import"},
    h("h2", {}, t("participants"), ` · ${t("teams_count", {n: champ.teams.length})}`),
    open ? h("form", {class: "card-form", id: "import-form", onsubmit: e => e.preventDefault()},
      h("h3", {}, t("import_csv")), h("p", {class: "hint"}, t("csv_hint")),
      field(t("choose_file"), fileBox()),
      chosen ? h("p", {class: "hint", id: "chosen-file"}, t("chosen_file"), " ", h("bdi", {dir: "auto"}, chosen.name)) : null,
      h("div", {class: "controls"},
        h("button", {type: "button", id: "check-file", onclick: () => sendFile(true)}, t("check_file")),
        h("button", {type: "button", class: "primary", id: "import-file", onclick: () => sendFile(false)},
          t("import_file")))) : null,
    noticeEl("import"),
    fileCheck ? fileCheckEl() : null,
    proposals?.length ? h("div", {id: "proposals"}, h("h3", {}, t("proposed_teams")),
      h("ul", {class: "list"}, proposals.map(p => h("li", {"data-team": p.team_id, "data-status": p.status},
        h("strong", {}, p.team_id), ` · ${listText(p.players.map(personName))}`,
        h("span", {class: p.status === "declined" ? "error" : "hint"}, ` — ${p.status === "declined" ? t("proposal_declined")
          : t("proposal_waiting", {names: listText(p.waiting.map(personName))})}`))))) : null,
    champ.teams.length ? labelled(h("table", {class: "list", id: "teams"},
      h("thead", {}, h("tr", {}, [t("team"), t("players"), t("club"), t("region"), t("rating"), t("actions")]
        .map(x => h("th", {}, x)))),
      h("tbody", {}, champ.teams.slice(0, PAGE).map(teamRowEl)))) : null,
    champ.teams.length > PAGE ? h("p", {class: "hint"}, t("more_teams", {n: champ.teams.length - PAGE})) : null);
}

const personName = p => p.startsWith("bot-") ? t("bot") : (names.get(p) ?? p);

// A team: its players and details, and what the organiser may do for it (each asks once before it acts):
// withdraw it, or bring in one of its registered substitutes for a player from the next round on.
function teamRowEl(team) {
  const path = `${base()}/teams/${enc(team.team_id)}`;
  const once = (key, label, then) => askOnce(`team/${team.team_id}/${key}`, label, {class: key.split(":")[0]}, then);
  const live = !team.withdrawn && champ.status !== "finished";
  return h("tr", {"data-team": team.team_id, class: team.withdrawn ? "withdrawn" : ""},
    h("td", {}, team.name || team.team_id, team.withdrawn ? h("span", {class: "hint"}, ` (${t("withdrawn")})`) : null),
    h("td", {}, listText(team.players.map(personName)),
      team.substitutes.length ? h("span", {class: "hint"}, ` · ${t("substitutes")}: ${listText(team.substitutes.map(personName))}`) : null),
    h("td", {}, team.club || "—"), h("td", {}, team.region || "—"), h("td", {}, team.rating ?? "—"),
    h("td", {}, live ? [once("withdraw", t("withdraw"), () => send("POST", `${path}/withdraw`,
                                                                   {command_id: commandId(), reason: "withdrawn by the organiser"})),
      team.substitutes.flatMap(sub => team.players.map(out => once(`substitute:${sub}:${out}`,
        t("sub_for", {sub: personName(sub), out: personName(out)}),
        () => send("POST", `${path}/substitute`, {command_id: commandId(), player_out: out, player_in: sub}))))] : null));
}

function fileCheckEl() {
  if (fileCheck.ok) return [h("p", {class: "ok", id: "file-ok", role: "status"},
    t(fileCheck.dry ? "file_ok" : "imported", {n: fileCheck.teams})),
    fileCheck.invited.length ? h("div", {class: "panel", id: "invited"},
      h("p", {}, t(fileCheck.dry ? "will_invite" : "invited_codes", {n: fileCheck.invited.length})),
      fileCheck.dry ? h("p", {}, listText(fileCheck.invited.map(i => i.login)))
        : h("table", {class: "list"}, h("tbody", {}, fileCheck.invited.map(i => h("tr", {"data-login": i.login},
            h("td", {}, i.login), h("td", {}, h("code", {class: "invite-code"}, i.code))))))) : null];
  return h("div", {class: "error-box", id: "file-errors", role: "alert"},
    h("p", {class: "error"}, t("import_refused", {n: fileCheck.error_count})),
    labelled(h("table", {class: "list"}, h("thead", {}, h("tr", {}, h("th", {}, t("line")), h("th", {}, t("column")), h("th", {}, t("reason")))),
      h("tbody", {}, fileCheck.errors.map(e => h("tr", {"data-line": e.line, "data-column": e.column ?? ""},
        h("td", {}, String(e.line)), h("td", {}, e.column ?? t("whole_line")), h("td", {}, e.reason)))))));
}

// The file input lives across the page's redraws (a redraw would make a new, empty one): the file checked is
// the file imported, without choosing it again.
let fileInput = null;
let chosen = null;           // the File chosen last, kept even if the browser empties its input

function fileBox() {
  fileInput ??= h("input", {type: "file", id: "csv-file", accept: ".csv,text/csv",
                            onchange: e => {
                              chosen = e.target.files[0] ?? chosen;
                              fileCheck = null;
                              if (refusal?.where === "import") refusal = null;     // said of the file before
                              render();
                            }});
  return fileInput;
}

// What an import's refusal means, in the page's language: the server's rule where it has words here,
// else its own sentence after ours.
function importRefusal(error) {
  if (error.status === 413) return t("file_too_large");
  if (error.rule === "invalid_field" && error.field === "body") return t("file_not_utf8");
  if (error.rule === "championship_closed" || error.rule === "registration_closed") return t("registration_is_closed");
  return t("file_refused", {why: error.message});
}

async function sendFile(dry) {
  const file = fileInput?.files[0] ?? chosen;
  if (!file) { refusal = {rule: "", text: t("no_file_chosen"), where: "import"}; render(); return; }
  chosen = file;
  let text;
  try {            // file.text() would turn bytes of another encoding into U+FFFD and import names garbled
    text = new TextDecoder("utf-8", {fatal: true}).decode(await file.arrayBuffer());
  } catch {
    refusal = {rule: "", text: t("file_not_utf8"), where: "import"};
    fileCheck = null;
    render();
    return;
  }
  const digest = (await sha256Hex(text)).slice(0, 32);
  refusal = null;
  try {
    const r = await sendText("POST", `${base()}/teams/import?command_id=import-${digest}${dry ? "&dry_run=true" : ""}`,
                             text);
    fileCheck = {ok: true, dry, teams: r.teams, invited: r.invited ?? [], name: file.name};
    if (!dry) { fileInput = null; chosen = null; }       // imported: the next file is another one
  } catch (error) {
    fileCheck = error.errors ? {ok: false, errors: error.errors, error_count: error.errorCount ?? error.errors.length}
      : null;
    if (!error.errors) refusal = {rule: error.rule ?? "", text: importRefusal(error), where: "import"};
  }
  await load();
}

// SHA-256 of a text, in hex (Web Crypto): the draw's commitment, a file's command id.
async function sha256Hex(text) {
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return [...bytes].map(b => b.toString(16).padStart(2, "0")).join("");
}

async function checkSeed() {
  seedCheck = null;
  if (!champ.draw_seed || !champ.draw_commitment) return;
  seedCheck = await sha256Hex(champ.draw_seed) === champ.draw_commitment;
}

function runEl() {
  const step = (label, elId, path, body = {}) => h("button", {type: "button", class: "primary", id: elId,
    onclick: () => act(() => send("POST", `${base()}/${path}`, {command_id: commandId(), ...body}))}, label);
  const next = champ.rounds + 1;
  const ready = mon?.needs.some(n => n.kind === "round_ready") || champ.status === "drawn";
  return h("section", {class: "panel", id: "run"}, h("h2", {}, t("run")),
    h("p", {}, `${t("status")}: `, h("strong", {id: "champ-status", "data-status": champ.status}, t(`status_${champ.status}`)),
      champ.champion ? [` · ${t("champion")}: `, h("strong", {id: "champion"}, teamName(champ.champion))] : null),
    champ.draw_commitment ? h("p", {class: "mono"}, `${t("commitment")}: `, h("code", {id: "commitment"}, champ.draw_commitment)) : null,
    champ.draw_seed ? h("p", {class: "mono"}, `${t("seed")}: `, h("code", {id: "seed"}, champ.draw_seed)) : null,
    // A line of its own: beside the seed's hex the Arabic sentence's parts would reorder.
    champ.draw_seed && seedCheck !== null ? h("p", {id: "seed-check", class: seedCheck ? "ok" : "error",
                                                    "data-ok": String(seedCheck)}, t(seedCheck ? "seed_checks" : "seed_fails")) : null,
    h("div", {class: "controls"},
      champ.status === "registration" ? step(t("close_registration"), "close-registration", "registration/close") : null,
      champ.status === "closed" ? step(t("make_draw"), "make-draw", "draw") : null,
      ready && champ.status !== "finished" && !mon?.needs.some(n => n.kind === "championship_over")
        ? step(t("start_round", {n: next}), "start-round", `rounds/${next}/start`) : null,
      mon?.needs.some(n => n.kind === "championship_over") ? h("button", {type: "button", class: "primary", id: "finish",
        onclick: () => { finishing = true; render(); }}, t("finish")) : null),
    finishing ? finishDialogEl() : null);
}

// Finishing cannot be undone: the dialog says what it does before the organiser says yes.
function finishDialogEl() {
  const close = () => { finishing = false; render(); };
  return h("dialog", {id: "finish-dialog", "aria-labelledby": "finish-title", "aria-describedby": "finish-what",
                      oncancel: e => { e.preventDefault(); close(); }},
    h("h2", {id: "finish-title"}, t("finish_title")),
    h("p", {}, h("strong", {}, h("bdi", {}, champ.name))),
    h("ul", {id: "finish-what"}, ["finish_ranking", "finish_no_change", "finish_no_withdraw", "finish_stays"]
      .map(k => h("li", {}, t(k)))),
    h("div", {class: "controls"},
      h("button", {type: "button", class: "primary", id: "finish-confirm", onclick: () => {
        finishing = false;
        act(() => send("POST", `${base()}/finish`, {command_id: commandId()}));
      }}, t("finish_confirm")),
      h("button", {type: "button", id: "finish-cancel", onclick: close}, t("not_yet"))));
}

// The next round's pairings, known before it starts: round 1's once the draw is made (public from then on,
// docs/access.md), a later round's once the last one is decided.
function pairingsEl() {
  if (!pairings?.round) return null;
  const named = tid => tid ? h("bdi", {}, pairings.names[tid] ?? teamName(tid)) : h("span", {class: "hint"}, t("bye_word"));
  return h("section", {class: "panel", id: "pairings", "data-round": pairings.round},
    h("h2", {}, t("pairings_of", {n: pairings.round})),
    h("p", {class: "hint"}, t(pairings.round === 1 ? "pairings_drawn" : "pairings_next")),
    h("table", {class: "list", id: "pairings-table"},
      h("thead", {}, h("tr", {}, [t("match"), t("team_a"), t("team_b")].map(x => h("th", {}, x)))),
      h("tbody", {}, pairings.matches.slice(0, PAGE).map(m => h("tr", {"data-match": m.match_id},
        h("td", {"data-label": t("match")}, h("bdi", {dir: "ltr"}, m.match_id)),
        h("td", {"data-label": t("team_a")}, named(m.team_a)),
        h("td", {"data-label": t("team_b")}, named(m.team_b)))))),
    pairings.matches.length > PAGE ? h("p", {class: "hint"}, t("more_matches", {n: pairings.matches.length - PAGE})) : null);
}

// The championship's referees: named by login or name, each removable (asked once).
function refereesEl() {
  if (referees === null) return null;
  const words = error => error.rule === "unknown_user" ? t("no_such_person", {who: `\u2068${refereeAsked}\u2069`})
    : error.rule === "not_a_referee" ? t("not_a_referee_now") : null;
  return h("section", {class: "panel", id: "referees"}, h("h2", {}, t("referees")),
    h("p", {class: "hint"}, t("referees_hint")),
    referees?.length ? h("ul", {class: "list", id: "referee-list"}, referees.map(r => h("li", {"data-user": r.user_id},
      h("bdi", {}, r.name), " ",
      askOnce(`referee/${r.user_id}`, t("remove_referee"), {class: "remove-referee"},
        () => send("DELETE", `${base()}/referees/${enc(r.user_id)}`)))))
      : h("p", {class: "hint", id: "referee-list"}, t("no_referees")),
    h("form", {class: "card-form", id: "new-referee", onsubmit: e => {
      e.preventDefault();
      refereeAsked = e.target.elements.referee_person.value.trim();
      if (!refereeAsked) { refusal = {rule: "", text: t("give_a_login"), where: "referees"}; render(); return; }
      act(() => send("POST", `${base()}/referees`, {person: refereeAsked}), load, "referees", words);
    }},
      field(t("login_or_name"), h("input", {id: "referee_person", name: "referee_person", maxlength: 100,
                                              autocomplete: "off", value: refusal?.where === "referees" ? refereeAsked : ""})),
      h("div", {class: "controls"}, h("button", {type: "submit", class: "primary", id: "add-referee"}, t("add_referee")))),
    noticeEl("referees"));
}

// What needs the organiser, in the page's language (the server's detail is English).
function needText(n) {
  const match = h("bdi", {dir: "ltr"}, n.match_id ?? "");
  if (n.kind === "round_ready") return t("need_round_ready_detail", {n: mon.round, next: mon.round + 1});
  if (n.kind === "championship_over") return t("need_over_detail", {n: mon.round});
  return [t("match"), " ", match, ": ", t(`need_${n.kind}_detail`)];
}

function monitorEl() {
  if (!mon || !mon.round) return null;
  const shown = mon.matches.length;
  const from = shown ? filter.after + 2 : 0;
  return h("section", {class: "panel", id: "monitor", "data-round": mon.round},
    h("h2", {}, t("monitor"), ` · ${t("round_n", {n: mon.round})}`),
    h("div", {class: "controls states", role: "group"},
      h("button", {type: "button", class: filter.state === null ? "selected" : "", "data-state": "",
                   onclick: () => refilter({state: null})}, `${t("all_states")} (${Object.values(mon.counts).reduce((a, b) => a + b, 0)})`),
      STATES.map(s => h("button", {type: "button", class: filter.state === s ? "selected" : "", "data-state": s,
                                   "aria-pressed": String(filter.state === s), onclick: () => refilter({state: s})},
        `${t(`state_${s}`)} (${mon.counts[s]})`))),
    mon.check_in_closes_at ? h("p", {id: "check-in-window"}, t("check_in_closes", {time: whenText(mon.check_in_closes_at)}), " ",
      new Date(mon.check_in_closes_at) > Date.now() ? h("button", {type: "button", id: "extend-check-in",
        onclick: () => act(() => send("POST", `${base()}/rounds/${mon.round}/check-in/extend`,
                                      {command_id: commandId(), seconds: 300}))}, t("extend_check_in")) : null) : null,
    h("h3", {}, t("needs_you")),
    mon.needs.length ? h("ul", {class: "list needs", id: "needs"}, mon.needs.map(n => h("li", {"data-kind": n.kind, "data-match": n.match_id ?? ""},
      h("strong", {}, t(`need_${n.kind}`)), " — ", needText(n),
      n.kind === "disputed" ? [" ", h("a", {href: "/referee/", class: "desk-link"}, t("to_the_desk"))] : null)))
      : h("p", {class: "hint", id: "needs"}, t("nothing_needs_you")),
    h("form", {class: "search", onsubmit: e => { e.preventDefault(); refilter({q: e.target.elements.q.value}); }},
      h("label", {for: "q"}, t("search_team")), h("input", {id: "q", name: "q", value: filter.q, type: "search"}),
      h("button", {type: "submit"}, t("search"))),
    labelled(h("table", {class: "list", id: "matches"},
      h("thead", {}, h("tr", {}, [t("match"), t("teams_vs"), t("state"), t("result"), t("actions")].map(x => h("th", {}, x)))),
      h("tbody", {}, mon.matches.map(matchRowEl)))),
    h("p", {class: "controls"}, h("span", {id: "page"}, t("page_of", {from, to: from + shown - 1, total: mon.total})),
      filter.pages.length ? h("button", {type: "button", id: "previous", onclick: () => page(-1)}, t("previous_page")) : null,
      mon.next_after !== null ? h("button", {type: "button", id: "next", onclick: () => page(1)}, t("next_page")) : null));
}

function matchRowEl(m) {
  const [a, b] = m.names;
  // The winner's name and the games' score each isolated: in Arabic a Latin name and digits would reorder.
  const result = m.winner ? [h("bdi", {}, teamName(m.winner)), m.games ? [" ", h("bdi", {dir: "ltr"}, `(${m.games.join("–")})`)] : null,
                             ` · ${t(`outcome_${m.outcome}`)}`]
    : m.outcome ? t(`outcome_${m.outcome}`) : "—";
  const open = !["finished"].includes(m.state) && m.team_a && m.team_b;
  const matchPath = `${base()}/matches/${enc(m.match_id)}`;
  const forfeit = team => askOnce(`${m.match_id}/${team}`, t("forfeit_of", {team: teamName(team)}),
    {class: "forfeit", "data-absent": team},
    () => send("POST", `${matchPath}/forfeit`, {command_id: commandId(), absent: team}));
  const doubleForfeit = () => askOnce(`${m.match_id}/both`, t("double_forfeit"), {class: "double-forfeit"},
    () => send("POST", `${matchPath}/double-forfeit`, {command_id: commandId()}));
  // A table stalled on a player: a bot plays his seat from now on (the table's ruling, as a referee's).
  const botSeat = tid => askOnce(`${m.match_id}/bot/${tid}`, t("bot_seat"), {class: "bot-seat", "data-table": tid},
    () => send("POST", `/tables/${enc(tid)}/rulings`, {command_id: commandId(),
      ruling: {type: "hand_seat_to_bot", reason: "the organiser handed a stalled seat to a bot"}}));
  return h("tr", {"data-match": m.match_id, "data-state": m.state},
    h("td", {}, m.match_id), h("td", {}, h("bdi", {}, a), " — ", h("bdi", {}, b || t("bye_word")),
      m.state === "waiting_check_in" ? h("span", {class: "hint"}, ` (${m.checked_in.map((c, k) => `${[a, b][k]}: ${t(c ? "checked" : "not_checked")}`).join(", ")})`) : null),
    h("td", {}, h("span", {class: `state-${m.state}`}, t(`state_${m.state}`))),
    h("td", {}, result),
    h("td", {}, open ? [forfeit(m.team_a), forfeit(m.team_b), doubleForfeit()] : null, ["stalled", "disputed", "playing"].includes(m.state) ? m.tables.map(botSeat) : null,
      m.tables.map(tid => h("a", {href: `/watch/table.html?id=${enc(tid)}`, class: "button-link"}, t("watch_table")))));
}

function exportsEl() {
  const file = (what, label) => h("button", {type: "button", id: `export-${what}`,
    onclick: () => act(() => download(`${base()}/export/${what}`, `${id}-${what}`), async () => render())}, label);
  return h("section", {class: "panel", id: "exports"}, h("h2", {}, t("exports")),
    h("div", {class: "controls"}, file("teams.csv", t("export_teams")), file("matches.csv", t("export_matches")),
      file("standings.csv", t("export_standings")), file("records.zip", t("export_records"))),
    h("p", {}, h("a", {href: `/watch/championship.html?id=${enc(id)}`, id: "public-page"}, t("public_page"))));
}

// ---- webhooks: what this championship sends to the organiser's integrations ----

const KINDS = ["registration.closed", "draw.made", "round.started", "match.started", "match.ended",
               "championship.finished", "referee.called", "referee.ruled"];
const kindName = kind => t(`kind_${kind.replace(".", "_")}`);

function deliveryEl(endpoint, d) {
  const last = d.last_status_code ? t("answered", {code: d.last_status_code}) : d.last_error ? t("no_answer") : "";
  return h("tr", {"data-delivery": d.delivery_id, "data-status": d.status},
    h("td", {}, kindName(d.kind)), h("td", {}, d.last_attempt_at ? whenText(d.last_attempt_at) : "—"),
    h("td", {class: d.status === "pending" && d.attempts ? "error" : ""},
      d.status === "delivered" ? t("delivered") : d.attempts ? t("retrying_at", {when: whenText(d.next_attempt_at)}) : t("queued")),
    h("td", {}, String(d.attempts)), h("td", {class: "hint", title: d.last_error ?? ""}, last),
    h("td", {}, endpoint.enabled ? h("button", {type: "button", class: "redeliver",
      onclick: () => act(() => send("POST", `/webhooks/${endpoint.endpoint_id}/deliveries/${d.delivery_id}/redeliver`),
                         loadWebhooks)}, t("send_again")) : null));
}

function endpointEl(endpoint) {
  const shown = hooks.open === endpoint.endpoint_id;
  return h("li", {"data-endpoint": endpoint.endpoint_id, "data-enabled": String(endpoint.enabled)},
    h("p", {}, h("code", {class: "hook-url", dir: "ltr"}, endpoint.url), endpoint.description ? ` · ${endpoint.description}` : "",
      ` · ${endpoint.championship_id ? t("this_championship") : t("all_my_championships")}`),
    h("p", {class: "hint"}, listText(endpoint.kinds.map(kindName))),
    h("p", {}, endpoint.enabled ? h("span", {class: "ok"}, t("hook_enabled"))
      : h("span", {class: "error", role: "alert"}, t("hook_disabled", {n: endpoint.failures})),
      ` · ${t("delivered_count", {n: endpoint.delivered})} · ${t("pending_count", {n: endpoint.pending})}`),
    h("div", {class: "controls"},
      h("button", {type: "button", class: "show-deliveries", "aria-expanded": String(shown), onclick: async () => {
        hooks.open = shown ? null : endpoint.endpoint_id;
        await loadWebhooks();
      }}, t(shown ? "hide_deliveries" : "show_deliveries")),
      endpoint.enabled ? null : h("button", {type: "button", class: "primary enable-hook",
        onclick: () => act(() => send("POST", `/webhooks/${endpoint.endpoint_id}/enable`), loadWebhooks)}, t("enable_again")),
      askOnce(`remove-${endpoint.endpoint_id}`, t("remove_hook"), {class: "remove-hook"},
        () => send("DELETE", `/webhooks/${endpoint.endpoint_id}`))),
    shown && hooks.deliveries ? (hooks.deliveries.length ? labelled(h("table", {class: "list deliveries"},
      h("thead", {}, h("tr", {}, [t("kind"), t("last_attempt"), t("state"), t("attempts"), t("last_answer"), t("actions")]
        .map(x => h("th", {}, x)))),
      h("tbody", {}, hooks.deliveries.map(d => deliveryEl(endpoint, d)))))
      : h("p", {class: "hint"}, t("no_deliveries"))) : null);
}

function webhooksEl() {
  const mine = (hooks.endpoints ?? []).filter(e => !e.championship_id || e.championship_id === id);
  return h("section", {class: "panel", id: "webhooks"}, h("h2", {}, t("webhooks")),
    h("p", {class: "hint"}, t("webhooks_hint"), " ", h("a", {href: "/schema#/webhooks"}, t("webhooks_api"))),
    hooks.secret ? h("div", {class: "ok secret mono", role: "status", id: "hook-secret"}, h("p", {}, t("secret_once")),
      h("code", {dir: "ltr"}, hooks.secret)) : null,
    mine.length ? h("ul", {class: "list", id: "endpoints"}, mine.map(endpointEl)) : h("p", {class: "hint"}, t("no_hooks")),
    h("form", {class: "card-form", id: "new-hook", onsubmit: e => {
      e.preventDefault();
      const f = e.target.elements;
      const kinds = KINDS.filter(k => f[`kind-${k}`].checked);
      const body = {url: f.hook_url.value, kinds, description: f.hook_note.value};
      if (f.hook_scope.value === "this") body.championship_id = id;
      act(async () => { hooks.secret = (await send("POST", "/webhooks", body)).secret; }, loadWebhooks);
    }},
      h("h3", {}, t("new_hook")),
      field(t("hook_url"), h("input", {id: "hook_url", name: "hook_url", type: "url", required: true,
                                        placeholder: "https://", dir: "ltr"})),
      field(t("hook_note"), h("input", {id: "hook_note", name: "hook_note", maxlength: "200"})),
      field(t("hook_scope"), select("hook_scope", [["this", t("this_championship")], ["all", t("all_my_championships")]], "this")),
      h("fieldset", {class: "kinds"}, h("legend", {}, t("hook_kinds")), KINDS.map(k => h("label", {class: "check"},
        h("input", {type: "checkbox", name: `kind-${k}`, checked: true}), " ", kindName(k)))),
      h("div", {class: "controls"}, h("button", {type: "submit", class: "primary", id: "add-hook"}, t("add_hook")))));
}

async function loadWebhooks() {
  hooks.endpoints = await get("/webhooks");
  hooks.deliveries = hooks.open && hooks.endpoints.some(e => e.endpoint_id === hooks.open)
    ? (await get(`/webhooks/${hooks.open}/deliveries?limit=20`)).deliveries : null;
  render();
}

// ---- fair play: who plays as if he saw hidden cards (a reason to look at the replays, never a sanction) ----

const VARIANTS = ["true", "partner", "shared", "bids"];

function choiceEl(kind, name) {
  if (kind === "card") return cardEl(name);
  if (name.startsWith("hokum:")) return `${t("hokum")} ${suitName(name.slice(6))}`;
  return kind === "double" && name === "pass" ? t("no_double") : t(name);
}

function scoreEl(score, label) {
  if (!score.telling) return h("td", {class: "hint", "data-label": label}, "—");
  return h("td", {class: score.flagged ? "error" : "", "data-flagged": String(score.flagged), "data-label": label},
    h("bdi", {dir: "ltr"}, `${score.followed}/${score.telling}`), " ",
    // The evidence (log likelihood ratio, cheating : an honest player of his strength) against the report's line.
    h("bdi", {class: "hint", "data-evidence": String(score.evidence),
              title: t("evidence_hint", {gain: score.gain.toFixed(1), expected: (score.baseline * score.telling).toFixed(1)})},
      t("evidence_of", {e: score.evidence.toFixed(1), line: score.threshold.toFixed(1)})));
}

function tellingEl(d) {
  return h("li", {"data-kind": d.kind},
    d.kind === "card" ? t("telling_card", {deal: d.deal_no, trick: d.trick}) : t("telling_call", {deal: d.deal_no}), " ",
    t("played_was"), " ", choiceEl(d.kind, d.played), " · ", t("honest_best"), " ", choiceEl(d.kind, d.honest_best), " · ",
    t("true_best"), " ", choiceEl(d.kind, d.followed === "partner" ? d.partner_best : d.true_best),
    " ", h("span", {class: "hint"}, t("loss_gp", {gp: d.loss})), " ",
    h("a", {href: d.replay, class: "replay-link"}, t("replay_here")));
}

function fairplayEl() {
  if (!fairplay) return null;
  const f = fairplay;
  return h("section", {class: "panel", id: "fairplay"}, h("h2", {}, t("fair_play")),
    h("p", {class: "hint"}, t("fair_play_hint")),
    h("p", {id: "fairplay-status"}, t("deals_analysed", {n: f.deals_analysed}),
      f.deals_pending ? ` · ${t("deals_waiting", {n: f.deals_pending})}` : "",
      f.deals_failed ? ` · ${t("deals_failed", {n: f.deals_failed})}` : "", " · ", h("bdi", {}, t("flag_level", {p: f.level}))),
    f.players.length ? h("table", {class: "list", id: "fairplay-players"},
      h("thead", {}, h("tr", {}, [t("player"), t("deals"), t("choices"), ...VARIANTS.map(v => t(`variant_${v}`)), ""]
        .map(x => h("th", {}, x)))),
      h("tbody", {}, f.players.flatMap(p => [
        h("tr", {"data-player": p.player, "data-flagged": String(p.flagged)},
          h("td", {}, p.name, p.kind === "bot" ? h("span", {class: "hint"}, ` (${t("bot")})`) : ""),
          h("td", {"data-label": t("deals")}, String(p.deals)), h("td", {"data-label": t("choices")}, String(p.decisions)),
          ...VARIANTS.map(v => scoreEl(p[v], t(`variant_${v}`))),
          h("td", {}, p.flagged ? h("strong", {class: "error"}, t("look_at_replays")) : "")),
        p.most_telling.length ? h("tr", {class: "telling"}, h("td", {colspan: "8"},
          h("ul", {class: "telling-list"}, p.most_telling.map(tellingEl)))) : null,
      ].filter(Boolean))))
      : h("p", {class: "hint"}, t("nothing_analysed")));
}

function championshipEl() {
  return [h("h1", {}, champ.name), h("p", {}, h("a", {href: "/organise/"}, t("my_championships"))), noticeEl(),
    runEl(), pairingsEl(), monitorEl(), importEl(), refereesEl(), exportsEl(), fairplayEl(), webhooksEl()];
}

// ---- loading ----

const names = new Map();

async function refilter(change) {
  filter = {...filter, ...change, after: -1, pages: []};
  await loadMonitor();
  render();
}

async function page(step) {
  if (step > 0) { filter.pages.push(filter.after); filter.after = mon.next_after; }
  else filter.after = filter.pages.pop() ?? -1;
  await loadMonitor();
  render();
}

async function loadMonitor() {
  const query = new URLSearchParams({limit: String(PAGE), after: String(filter.after)});
  if (filter.state) query.set("state", filter.state);
  if (filter.q) query.set("q", filter.q);
  mon = await get(`${base()}/monitor?${query}`);
}

async function load() {
  if (id) {
    await loadMonitor();                  // first: only its organisers and referees may see it (403 otherwise)
    champ = await get(base());
    await checkSeed();
    if (!mon.round) mon = null;
    hooks.endpoints = await get("/webhooks");
    fairplay = champ.game === "balut" ? null : await get(`${base()}/fairplay?limit=20`);
    pairings = ["drawn", "running"].includes(champ.status) ? await get(`${base()}/pairings`) : null;
    referees = await get(`${base()}/referees`).catch(error => {   // a referee here sees no referees' list
      if (error.status === 403) return null;
      throw error;
    });
    proposals = champ.status === "registration" ? await get(`${base()}/proposals`) : null;
    const people = [...new Set([...champ.teams.slice(0, PAGE).flatMap(x => [...x.players, ...x.substitutes]),
                                ...(proposals ?? []).flatMap(p => [...p.players, ...p.substitutes])])]
      .filter(p => !p.startsWith("bot-") && !names.has(p));
    for (let i = 0; i < people.length; i += 100) {
      for (const u of await get(`/users?ids=${people.slice(i, i + 100).join(",")}`)) names.set(u.user_id, u.name);
    }
  } else {
    list = await get("/championships?organised=true");
    profiles = profiles ?? await get("/profiles");
  }
  render();
}

function render() {
  if (!me) {
    fill(main, h("h1", {}, t("organise_title")), h("p", {}, h("a", {href: `/play/?next=${enc(location.pathname + location.search)}`,
      id: "sign-in-link", class: "button-link"}, t("sign_in_first"))));
    return;
  }
  if (id ? !champ : !list) {
    fill(main, h("h1", {}, t("organise_title")), noticeEl());
    return;
  }
  fill(main, id ? championshipEl() : listEl());
  const dialog = document.getElementById("finish-dialog");
  if (dialog && !dialog.open) dialog.showModal();
}

async function start() {
  me = await signedIn();
  const account = document.getElementById("account");
  if (me && account) fill(account, h("span", {class: "me"}, me.name, me.login ? ` (${me.login})` : ""));
  if (!me) { render(); return; }
  try {
    await load();
  } catch (error) {
    refusal = {rule: error.rule ?? "", text: error.rule === "not_organiser" && !id ? `${t("not_an_organiser")} ${error.message}`
      : error.message};
    render();
  }
}

// The monitor follows the round by itself: read again every few seconds while a round is under way, and
// drawn again unless the organiser is typing or choosing (his search box and his focus stay as they are).
async function follow() {
  if (!id || !champ || !mon || champ.status === "finished") return;
  const busy = document.activeElement?.matches?.("input, select, textarea");
  try {
    await loadMonitor();
    champ = await get(base());
    const ready = mon.needs.some(n => n.kind === "round_ready");
    const moment = `${champ.status}/${mon.round}/${ready}`;       // the next round's pairings may be known now
    if (moment !== pairingsMoment) {
      pairingsMoment = moment;
      pairings = ["drawn", "running"].includes(champ.status) ? await get(`${base()}/pairings`) : null;
    }
  } catch { return; }                       // the next turn tries again
  if (!busy && !finishing) render();       // an open dialog is left as it is
}

setUp();
onChange(() => { createForm = null; render(); });
start();
setInterval(follow, 3000);
