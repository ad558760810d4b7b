// The lobby (/play/): sign in or create an account; then what waits for me (invitations to tables, with their
// terms, and to teams), my championships with my next match and its check-in, my live tables, a new table
// with friends or bots, my finished games with their replays and audits.
import {get, send, session, signedIn, userNames} from "./api.js";
import {fill, h} from "./cards.js";
import {listText, onChange, setUp, t} from "./i18n.js";
import {termsEl, whenText} from "./terms.js";
import "./words_play.js";
import "./words_organise.js";
import "./words_referee.js";

const main = document.getElementById("main");
const account = document.getElementById("account");
let me = null, lobby = null, nameOf = () => undefined;
let notice = null;            // {kind: "error" | "ok", text, where, field}: the last answer, shown where it was asked
let showPassword = false;
let games = null;             // GET /games: what a table of each game takes (seats, profiles, bot levels, modes)
// What was typed or chosen in the forms, kept across redraws (the lobby is read again every 15 s, a refusal
// redraws the page): a form never forgets what its person chose, nor switches the game under him.
const typed = {};
const draft = {game: null, players: 3, seats: {}, level: null, profile: null, mode: null, hands: "after_deal",
               clock: 30, timeout: "auto_play", pace: 1};

function who(userId) {
  if (userId === "bot") return t("bot");
  const user = nameOf(userId);
  return user ? (user.kind === "bot" ? t("bot") : user.name) : "…";
}

function say(where, kind, text, field = null) { notice = {where, kind, text, field}; render(); }

function noticeEl(where) {
  if (!notice || notice.where !== where) return null;
  return h("p", {class: notice.kind === "error" ? "error" : "ok", role: notice.kind === "error" ? "alert" : "status",
                 id: `notice-${where}`}, notice.text);
}

// A request whose refusal is shown in place (never a silent failure), then the lobby is read again.
async function act(where, what, done) {
  try {
    const answer = await what();
    if (done) say(where, "ok", done(answer));
  } catch (error) {
    say(where, "error", error.message);
    return;
  }
  await load();
}

// Signing in, up or out: on success the page starts again as whoever is signed in now.
async function sessionAct(where, what, fieldOf = () => null) {
  try {
    await what();
  } catch (error) {
    say(where, "error", error.message, fieldOf(error));
    return;
  }
  notice = null;
  for (const k of Object.keys(typed)) delete typed[k];
  // Sent here to sign in by a page of the game (its session had ended): back there, once signed in.
  const back = new URLSearchParams(location.search).get("next");
  if (back && /^\/(play|organise|watch)\//.test(back) && await signedIn()) { location.href = back; return; }
  await start();
}

// A text field that keeps what was typed in it across redraws (never a password: a refused one is typed again).
function field(id, label, attrs = {}) {
  const keep = attrs.type !== "password";
  return h("p", {class: "field"}, h("label", {for: id}, label), h("input", {id, name: id, required: true, ...attrs,
    ...(keep ? {value: typed[id] ?? "", oninput: e => { typed[id] = e.target.value; }} : {}),
    ...(notice?.field === id ? {"aria-invalid": "true", "aria-describedby": `notice-${notice.where}`} : {})}));
}

// ---- signed out: sign in, or create an account ----

function signInEl() {
  const signIn = h("form", {id: "sign-in", class: "card-form", onsubmit: e => {
    e.preventDefault();
    const f = e.target.elements;
    sessionAct("sign-in", () => session("POST", "/session", {login: f.login.value, password: f.password.value}));
  }},
  h("h2", {}, t("sign_in")), noticeEl("sign-in"),
  field("login", t("login"), {autocomplete: "username", autocapitalize: "none"}),
  field("password", t("password"), {type: "password", autocomplete: "current-password"}),
  h("button", {type: "submit", class: "primary"}, t("sign_in")));
  const create = h("form", {id: "sign-up", class: "card-form", onsubmit: e => {
    e.preventDefault();
    const f = e.target.elements;
    if (f["new-password"].value !== f["new-password-2"].value) {
      say("sign-up", "error", t("passwords_differ"), "new-password"); return;
    }
    sessionAct("sign-up", () => session("POST", "/accounts", {login: f["new-login"].value,
      password: f["new-password"].value, name: f["display-name"].value || undefined}),
      error => ({login: "new-login", name: "display-name", password: "new-password"})[error.field] ?? null);
  }},
  h("h2", {}, t("create_account")), noticeEl("sign-up"),
  field("new-login", t("login"), {autocomplete: "username", autocapitalize: "none", minlength: 3, maxlength: 32}),
  field("display-name", t("display_name"), {required: false, maxlength: 80}),
  field("new-password", t("password"), {type: "password", autocomplete: "new-password", minlength: 8}),
  field("new-password-2", t("password_again"), {type: "password", autocomplete: "new-password", minlength: 8}),
  h("p", {class: "hint"}, t("password_rules")),
  h("button", {type: "submit"}, t("create_account")));
  const claim = h("form", {id: "claim", class: "card-form", onsubmit: e => {
    e.preventDefault();
    const f = e.target.elements;
    if (f["claim-password"].value !== f["claim-password-2"].value) {
      say("claim", "error", t("passwords_differ"), "claim-password"); return;
    }
    sessionAct("claim", () => session("POST", "/accounts/claim", {code: f["claim-code"].value.trim(),
      password: f["claim-password"].value, name: f["claim-name"].value || undefined}));
  }},
  h("h2", {}, t("claim_account")), h("p", {class: "hint"}, t("claim_hint")), noticeEl("claim"),
  field("claim-code", t("invitation_code"), {autocomplete: "off", autocapitalize: "none"}),
  field("claim-name", t("display_name"), {required: false, maxlength: 80}),
  field("claim-password", t("password"), {type: "password", autocomplete: "new-password", minlength: 8}),
  field("claim-password-2", t("password_again"), {type: "password", autocomplete: "new-password", minlength: 8}),
  h("button", {type: "submit"}, t("claim_account")));
  return [h("h1", {}, t("play_title")), h("div", {class: "forms"}, signIn, create, claim)];
}

// ---- signed in: the lobby ----

function accountEl() {
  if (!me) return [];
  return [h("span", {id: "me"}, me.name, me.login ? ` (${me.login})` : ""),
    (me.roles ?? []).includes("organiser") ? h("a", {href: "/organise/", id: "to-organise"}, t("organise_title")) : null,
    me.referees ? h("a", {href: "/referee/", id: "to-desk"}, t("desk")) : null,
    h("button", {type: "button", id: "password-toggle", onclick: () => { showPassword = !showPassword; render(); }},
      t("change_password"))];
}

function passwordEl() {
  if (!showPassword) return null;
  return h("form", {id: "password-form", class: "card-form", onsubmit: e => {
    e.preventDefault();
    const f = e.target.elements;
    act("password", () => send("PUT", "/me/password", {current_password: f["current-password"].value,
                                                       new_password: f["changed-password"].value}),
        () => { showPassword = false; return t("password_changed"); });
  }},
  h("h2", {}, t("change_password")), noticeEl("password"),
  field("current-password", t("current_password"), {type: "password", autocomplete: "current-password"}),
  field("changed-password", t("new_password"), {type: "password", autocomplete: "new-password", minlength: 8}),
  h("button", {type: "submit"}, t("change_password")));
}

function seatsText(seats, mySeat) {
  return seats.map((u, s) => h("li", {"data-seat": s}, `${t("seat")} ${s + 1}: `,
    h("strong", {}, s === mySeat ? t("you") : who(u)),
    seats.length === 4 ? ` (${t(s % 2 === mySeat % 2 ? "partner_side" : "opponent_side")})` : ""));
}

// Accept or decline an invitation (``base``/accept, ``base``/decline), the answer said under it.
function answerEl(where, base) {
  return [h("div", {class: "controls"},
    h("button", {type: "button", class: "primary accept", onclick: () => act(where, () => send("POST", `${base}/accept`))},
      t("accept")),
    h("button", {type: "button", class: "decline", onclick: () => act(where, () => send("POST", `${base}/decline`))},
      t("decline"))),
    noticeEl(where)];
}

function invitationEl(inv) {
  const base = `/tables/${encodeURIComponent(inv.table_id)}`;
  return h("li", {class: "invitation", "data-table": inv.table_id},
    h("h3", {}, t("invited_by", {name: inv.proposed_by ? who(inv.proposed_by) : t("the_platform")})),
    h("ul", {class: "seats"}, seatsText(inv.seats, inv.my_seat)),
    termsEl(inv.terms, nameOf),
    inv.waiting.length > 1 ? h("p", {class: "hint"}, t("also_waiting", {names: listText(inv.waiting.filter(u =>
      u !== me.user_id).map(who))})) : null,
    answerEl(`inv-${inv.table_id}`, base));
}

function teamInvitationEl(inv) {
  const base = `/championships/${encodeURIComponent(inv.championship_id)}/teams/${encodeURIComponent(inv.team_id)}`;
  return h("li", {class: "invitation", "data-team": inv.team_id},
    h("h3", {}, t("team_invite", {team: inv.team_id, championship: inv.championship})),
    h("p", {}, `${t("players")}: ${listText(inv.players.map(who))}`,
      inv.substitutes.length ? ` · ${t("substitutes")}: ${listText(inv.substitutes.map(who))}` : ""),
    h("p", {class: "hint"}, t("invited_by", {name: who(inv.proposed_by)})),
    answerEl(`team-${inv.team_id}`, base));
}

function championshipEl(c) {
  const m = c.next_match;
  const where = `champ-${c.championship_id}`;
  return h("li", {class: "championship", "data-championship": c.championship_id},
    h("h3", {}, h("a", {href: `/watch/championship.html?id=${encodeURIComponent(c.championship_id)}`}, c.name)),
    h("p", {}, `${t("team")}: `, h("bdi", {class: "team-name"}, c.team_name),
      ` · ${t("status")}: ${t(`status_${c.status}`)}`,
      c.champion ? [` · ${t("champion")}: `, h("bdi", {}, c.champion_name)] : ""),
    m ? h("div", {class: "next-match", "data-match": m.match_id},
      h("p", {}, h("strong", {}, `${t("round")} ${m.round}: `),
        m.opponent ? [`${t("against_word")} `, h("bdi", {class: "opponent"}, m.opponent_name)] : t("bye"),
        ` · ${t(`match_${m.status}`)}`),
      m.starts_at ? h("p", {}, `${t("starts_at")}: ${whenText(m.starts_at)}`) : null,
      m.check_in_closes_at && m.status !== "decided" ? h("p", {},
        m.checked_in ? h("span", {class: "ok", id: `checked-${m.match_id}`}, t("checked_in"))
          : h("button", {type: "button", class: "primary check-in", onclick: () => act(where, () => send("POST",
              `/championships/${encodeURIComponent(c.championship_id)}/matches/${encodeURIComponent(m.match_id)}/check-in`,
              {command_id: `check-in-${m.match_id}`}))}, t("check_in")),
        ` ${t("check_in_closes", {time: whenText(m.check_in_closes_at)})}`) : null,
      m.tables.length ? h("p", {}, m.tables.map(id => h("a", {href: `/play/table.html?id=${encodeURIComponent(id)}`,
        class: "button-link"}, t("to_the_table")))) : null) : h("p", {class: "hint"}, t("no_match_yet")),
    noticeEl(where));
}

// Who sits with me, each name isolated (a Latin name keeps its place in Arabic): at the card game my partner
// and the two opponents, at the dice game every other player.
function seatedEl(tb) {
  const names = seats => listText(seats.map(u => `\u2068${who(u)}\u2069`));
  const mine = tb.my_seat;
  if (tb.game === "balut" || tb.seats.length !== 4) return names(tb.seats.filter((_, s) => s !== mine));
  return [t("with_partner", {name: names([tb.seats[(mine + 2) % 4]])}), ` ${t("against_word")} `,
          names([tb.seats[(mine + 1) % 4], tb.seats[(mine + 3) % 4]])];
}

// A table of mine: a live one to go back to; a finished one says so, with how it ended for me (won or lost,
// my place at a dice table, the score) and its replay — never a "live" look.
function tableRowEl(tb, finished) {
  const mine = tb.my_seat;
  const dice = tb.game === "balut";
  const won = finished && tb.places ? tb.places[mine] === 1 : null;
  const id = encodeURIComponent(tb.table_id);
  const score = !tb.scores ? null : dice ? `(${tb.scores.map((p, s) => s === mine ? `${t("you")} ${p}` : String(p)).join(" – ")})`
    : `(${[tb.scores[mine % 2], tb.scores[1 - mine % 2]].join(" – ")})`;
  return h("li", {class: `table-row${finished ? " finished" : ""}`, "data-table": tb.table_id,
                  "data-status": finished ? "finished" : "live"},
    h("span", {class: "game-name"}, t(dice ? "balut_game" : "card_game")),
    " · ", seatedEl(tb),
    finished ? [" · ", h("span", {class: "state finished"}, t("table_finished")), " · ",
      h("strong", {class: `result ${won ? "ok" : "bad"}`},
        dice && tb.places ? t("placed", {place: tb.places[mine], of: tb.seats.length}) : won ? t("won") : t("lost")),
      score ? [" ", h("bdi", {class: "score"}, score)] : null,
      " ", h("a", {href: `/watch/table.html?id=${id}&at=1`}, t("replay")),
      dice ? null : [" ", h("a", {href: `/watch/audit.html?table=${id}&deal=1`}, t("audit_first"))]]
      : [" ", h("a", {href: `/play/table.html?id=${id}`, class: "button-link primary"}, t("play_now"))],
    h("span", {class: "hint"}, ` · ${whenText(tb.created_at)}`));
}

// ---- a new table: the form offers what the chosen game takes (GET /games), nothing the server refuses ----

const gameOf = name => games.find(g => g.name === name);

function seatChoiceEl(k, label) {
  const seat = draft.seats[k] ??= {kind: "bot", login: ""};
  return h("p", {class: "field seat-choice"}, h("label", {for: `seat-${k}`}, label),
    h("select", {id: `seat-${k}`, name: `seat-${k}`, onchange: e => { seat.kind = e.target.value; redrawForm(); }},
      h("option", {value: "bot", selected: seat.kind === "bot"}, t("bot")),
      h("option", {value: "person", selected: seat.kind === "person"}, t("a_friend"))),
    h("input", {id: `login-${k}`, name: `login-${k}`, placeholder: t("friends_login"), hidden: seat.kind !== "person",
                value: seat.login, oninput: e => { seat.login = e.target.value; },
                "aria-label": `${label}: ${t("friends_login")}`, autocapitalize: "none"}));
}

function choiceEl(id, label, values, chosen, text, onchange, attrs = {}) {
  return h("p", {class: "field", ...attrs}, h("label", {for: id}, label),
    h("select", {id, name: id, onchange: e => { onchange(e.target.value); redrawForm(); }},
      values.map(v => h("option", {value: v, selected: String(v) === String(chosen)}, text(v)))));
}

// The other seats of a table of ``g`` (after mine), as the form names them.
function seatLabels(g) {
  if (g.max_seats === 4 && g.min_seats === 4) return [t("right_opponent"), t("partner"), t("left_opponent")];
  return Array.from({length: draft.players - 1}, (_, k) => `${t("player")} ${k + 2}`);
}

function newTableEl() {
  if (!games) return null;
  draft.game ??= new URLSearchParams(location.search).get("game");    // a link may open the form on a game
  const g = gameOf(draft.game) ?? games[0];
  draft.game = g.name;
  draft.players = Math.min(Math.max(draft.players, g.min_seats), g.max_seats);
  if (!g.bot_levels.includes(draft.level)) draft.level = g.default_bot;
  if (!g.profiles.includes(draft.profile)) draft.profile = g.default_profile;
  if (!g.table_modes.includes(draft.mode)) draft.mode = g.table_modes[0];
  if (!g.timeout_rules.includes(draft.timeout)) draft.timeout = g.timeout_rules[0];
  const labels = seatLabels(g);
  const bots = labels.some((_, k) => (draft.seats[k + 1]?.kind ?? "bot") === "bot");
  const cards = g.name === "baloot";           // the hands a spectator sees: the card game's (dice are all public)
  return h("form", {id: "new-table", class: "card-form", "data-game": g.name,
                    onsubmit: e => { e.preventDefault(); openTable(); }},
    h("h2", {}, t("new_table")), noticeEl("new-table"),
    choiceEl("game", t("game"), games.map(x => x.name), g.name, name => t(`game_${name}`),
             v => { draft.game = v; }),
    g.min_seats < g.max_seats ? choiceEl("players", t("players_count"),
      Array.from({length: g.max_seats - g.min_seats + 1}, (_, k) => g.min_seats + k), draft.players, String,
      v => { draft.players = Number(v); }, {id: "players-field"}) : null,
    h("div", {id: "seat-choices"}, labels.map((label, k) => seatChoiceEl(k + 1, label))),
    bots ? choiceEl("bot-level", t("bot_level"), g.bot_levels, draft.level, l => t(`level_${l}`),
                    v => { draft.level = v; }) : null,
    // How fast the bots play: a second apart lets one follow each card; at once for a quick game.
    bots ? choiceEl("bot-pace", t("pace_choice"), [1, 0.5, 0], draft.pace, n => t(`pace_${String(n).replace(".", "_")}`),
                    v => { draft.pace = Number(v); }) : null,
    choiceEl("profile", t("profile"), g.profiles, draft.profile, p => t(`profile_${p}`), v => { draft.profile = v; }),
    g.table_modes.length > 1 ? [choiceEl("table-mode", t("table_mode"), g.table_modes, draft.mode,
                                         m => t(`mode_${m}_choice`), v => { draft.mode = v; }),
      h("p", {class: "hint", id: "mode-hint"}, t(`mode_${draft.mode}_hint`))] : null,
    cards ? choiceEl("hands", t("hands_policy"), ["after_deal", "never", "always"], draft.hands, p => t(`hands_${p}`),
                     v => { draft.hands = v; }) : null,
    choiceEl("clock", t("turn_clock"), [0, 15, 30, 60, 120], draft.clock,
             n => Number(n) ? t("seconds", {n}) : t("no_clock"), v => { draft.clock = Number(v); }),
    choiceEl("timeout", t("on_timeout"), g.timeout_rules, draft.timeout, o => t(`timeout_${o}`),
             v => { draft.timeout = v; }),
    h("button", {type: "submit", class: "primary"}, t("open_table")));
}

// The form drawn again in place (a choice changes what it offers), the focus kept on the control in use.
function redrawForm() {
  const old = document.getElementById("new-table");
  if (!old) return;
  const focused = document.activeElement?.id;
  old.replaceWith(newTableEl());
  if (focused) document.getElementById(focused)?.focus();
}

async function openTable() {
  const g = gameOf(draft.game);
  try {
    const seats = [me.user_id];
    for (let k = 1; k < seatLabels(g).length + 1; k++) {
      const seat = draft.seats[k] ?? {kind: "bot"};
      if (seat.kind === "bot") { seats.push("bot"); continue; }
      const login = seat.login.trim();
      if (!login) throw new Error(t("name_a_friend"));
      seats.push((await get(`/accounts/${encodeURIComponent(login)}`)).user_id);
    }
    const body = {seats, game: g.name, profile: draft.profile, mode: draft.mode, on_timeout: draft.timeout};
    if (seats.includes("bot")) {                                    // a level and a pace for the bots that sit
      body.bot_level = draft.level;
      body.bot_pace_seconds = draft.pace;
    }
    if (draft.clock) body.turn_seconds = draft.clock;
    if (g.name === "baloot") {
      body.hands_policy = draft.hands;
      if (draft.hands === "always") body.delay_seconds = 1800;       // every hand shown: half an hour late
    }
    const made = await send("POST", "/tables", body);
    nameOf = await userNames(seats.filter(u => u !== "bot"));
    if (made.status === "live") { location.href = `/play/table.html?id=${encodeURIComponent(made.table_id)}`; return; }
    say("new-table", "ok", t("table_proposed", {names: listText(made.waiting.map(who))}));
    await load();
  } catch (error) {
    say("new-table", "error", error.field === "seats" || error.rule === "unknown_account"
      ? `${t("no_such_friend")} (${error.message})` : error.message);
  }
}

function section(id, title, items, empty) {
  return h("section", {id, class: "lobby-section"}, h("h2", {}, title),
    items.length ? h("ul", {class: "lobby-list"}, items) : h("p", {class: "hint"}, empty));
}

function lobbyEl() {
  const l = lobby;
  return [
    h("h1", {}, t("lobby_of", {name: me.name})), noticeEl("account"), passwordEl(),
    section("invitations", t("invitations"), [...l.invitations.map(invitationEl), ...l.team_invitations.map(teamInvitationEl)],
            t("no_invitations")),
    section("my-championships", t("my_championships"), l.championships.map(championshipEl), t("no_championships")),
    section("live", t("my_live_tables"), l.live.map(tb => tableRowEl(tb, false)), t("no_live_tables")),
    h("section", {class: "lobby-section"}, newTableEl()),
    section("finished", t("my_finished_games"), l.finished.map(tb => tableRowEl(tb, true)), t("no_finished_games")),
  ];
}

function render() {
  const focused = document.activeElement?.id;
  fill(account, accountEl());
  if (!me) fill(main, signInEl());
  else if (lobby) fill(main, lobbyEl());
  // The field a refusal is about takes the focus; else whatever had it keeps it (the lobby redraws itself).
  const again = document.getElementById(notice?.field && !notice.focused ? notice.field : focused || "");
  if (notice?.field) notice.focused = true;
  again?.focus();
}

async function load() {
  lobby = await get("/me/lobby");
  const ids = [...lobby.invitations.flatMap(i => [...i.seats, i.proposed_by]),
    ...lobby.team_invitations.flatMap(i => [...i.players, ...i.substitutes, i.proposed_by]),
    ...lobby.live.flatMap(tb => tb.seats), ...lobby.finished.flatMap(tb => tb.seats)].filter(u => u && u !== "bot");
  nameOf = await userNames(ids);
  render();
}

async function start() {
  me = await signedIn(true);
  lobby = null;
  render();
  if (me) {
    games ??= await get("/games");
    await load();
  }
}

setUp();
onChange(render);
start().catch(error => fill(main, h("p", {class: "error", role: "alert"}, `${t("error")}: ${error.message}`)));
// The lobby is read again every 15 s (an invitation or a match may arrive) and when the page comes back.
setInterval(() => { if (me && document.visibilityState === "visible") load().catch(() => {}); }, 15000);
