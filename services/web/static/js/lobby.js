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
let notice = null;            // {kind: "error" | "ok", text, where}: the last answer, shown where it was asked
let showPassword = false;

const CARD_PROFILES = ["saudi", "belote_classic", "belote_declarations"];
const DICE_PROFILES = ["stc", "ibf"];

function who(userId) {
  if (userId === "bot") return t("bot");
  const user = nameOf(userId);
  return user ? (user.kind === "bot" ? t("bot") : user.name) : "…";
}

function say(where, kind, text) { notice = {where, kind, text}; render(); }

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
async function sessionAct(where, what) {
  try {
    await what();
  } catch (error) {
    say(where, "error", error.message);
    return;
  }
  notice = null;
  // Sent here to sign in by a page of the game (its session had ended): back there, once signed in.
  const back = new URLSearchParams(location.search).get("next");
  if (back && /^\/(play|organise|watch)\//.test(back) && await signedIn()) { location.href = back; return; }
  await start();
}

function field(id, label, attrs = {}) {
  return h("p", {class: "field"}, h("label", {for: id}, label), h("input", {id, name: id, required: true, ...attrs}));
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
    if (f["new-password"].value !== f["new-password-2"].value) { say("sign-up", "error", t("passwords_differ")); return; }
    sessionAct("sign-up", () => session("POST", "/accounts", {login: f["new-login"].value,
      password: f["new-password"].value, name: f["display-name"].value || undefined}));
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
    if (f["claim-password"].value !== f["claim-password-2"].value) { say("claim", "error", t("passwords_differ")); return; }
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
      t("change_password")),
    h("button", {type: "button", id: "sign-out", onclick: () =>
      sessionAct("account", () => session("DELETE", "/session"))}, t("sign_out"))];
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
    h("p", {}, `${t("team")}: ${c.team_id} · ${t("status")}: ${t(`status_${c.status}`)}`,
      c.champion ? ` · ${t("champion")}: ${c.champion}` : ""),
    m ? h("div", {class: "next-match", "data-match": m.match_id},
      h("p", {}, h("strong", {}, `${t("round")} ${m.round}: `),
        m.opponent ? t("against", {team: m.opponent}) : t("bye"), ` · ${t(`match_${m.status}`)}`),
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

function tableRowEl(tb, finished) {
  const mine = tb.my_seat;
  const won = finished && tb.places ? tb.places[mine] === 1 : null;
  const id = encodeURIComponent(tb.table_id);
  return h("li", {class: "table-row", "data-table": tb.table_id},
    h("span", {class: "game-name"}, t(tb.game === "balut" ? "balut_game" : "card_game")),
    " · ", listText(tb.seats.filter((_, s) => s !== mine).map(who)),
    finished ? [" · ", h("strong", {class: won ? "ok" : ""}, won ? t("won") : t("lost")),
      tb.scores ? ` (${(tb.game === "balut" ? tb.scores : [tb.scores[mine % 2 === 0 ? 0 : 1], tb.scores[mine % 2 === 0 ? 1 : 0]])
        .join(" – ")})` : "",
      " ", h("a", {href: `/watch/table.html?id=${id}&at=1`}, t("replay")),
      tb.game !== "balut" ? [" ", h("a", {href: `/watch/audit.html?table=${id}&deal=1`}, t("audit_first"))] : null]
      : [" ", h("a", {href: `/play/table.html?id=${id}`, class: "button-link primary"}, t("play_now"))],
    h("span", {class: "hint"}, ` · ${whenText(tb.created_at)}`));
}

function seatChoiceEl(k, label) {
  return h("p", {class: "field seat-choice"}, h("label", {for: `seat-${k}`}, label),
    h("select", {id: `seat-${k}`, name: `seat-${k}`, onchange: e => {
      e.target.parentElement.querySelector("input").hidden = e.target.value !== "person";
    }}, h("option", {value: "bot"}, t("bot")), h("option", {value: "person"}, t("a_friend"))),
    h("input", {id: `login-${k}`, name: `login-${k}`, placeholder: t("friends_login"), hidden: true,
                "aria-label": `${label}: ${t("friends_login")}`, autocapitalize: "none"}));
}

function newTableEl() {
  let game = "baloot";
  const form = h("form", {id: "new-table", class: "card-form", onsubmit: e => { e.preventDefault(); openTable(e.target); }});
  const seats = h("div", {id: "seat-choices"});
  const profiles = h("select", {id: "profile", name: "profile"});
  const drawSeats = () => {
    const count = game === "balut" ? Number(form.elements.players.value) : 4;
    const labels = game === "balut" ? Array.from({length: count - 1}, (_, k) => `${t("player")} ${k + 2}`)
      : [t("right_opponent"), t("partner"), t("left_opponent")];
    fill(seats, labels.map((label, k) => seatChoiceEl(k + 1, label)));
    fill(profiles, (game === "balut" ? DICE_PROFILES : CARD_PROFILES).map(p => h("option", {value: p}, t(`profile_${p}`))));
    form.querySelectorAll(".card-only").forEach(el => { el.hidden = game === "balut"; });
    form.querySelector("#players-field").hidden = game !== "balut";
  };
  fill(form, h("h2", {}, t("new_table")), noticeEl("new-table"),
    h("p", {class: "field"}, h("label", {for: "game"}, t("game")),
      h("select", {id: "game", name: "game", onchange: e => { game = e.target.value; drawSeats(); }},
        h("option", {value: "baloot"}, t("card_game")), h("option", {value: "balut"}, t("balut_game")))),
    h("p", {class: "field", id: "players-field", hidden: true}, h("label", {for: "players"}, t("players_count")),
      h("select", {id: "players", name: "players", onchange: drawSeats},
        [2, 3, 4, 5, 6, 7, 8].map(n => h("option", {value: n, selected: n === 3}, String(n))))),
    seats,
    h("p", {class: "field"}, h("label", {for: "bot-level"}, t("bot_level")),
      h("select", {id: "bot-level", name: "bot_level"}, ["easy", "normal", "hard"].map(l =>
        h("option", {value: l, selected: l === "normal"}, t(`level_${l}`))))),
    h("p", {class: "field"}, h("label", {for: "profile"}, t("profile")), profiles),
    h("p", {class: "field card-only"}, h("label", {for: "hands"}, t("hands_policy")),
      h("select", {id: "hands", name: "hands"}, ["after_deal", "never", "always"].map(p =>
        h("option", {value: p}, t(`hands_${p}`))))),
    h("p", {class: "field"}, h("label", {for: "clock"}, t("turn_clock")),
      h("select", {id: "clock", name: "clock"}, [0, 15, 30, 60, 120].map(s =>
        h("option", {value: s, selected: s === 30}, s ? t("seconds", {n: s}) : t("no_clock"))))),
    h("p", {class: "field"}, h("label", {for: "timeout"}, t("on_timeout")),
      h("select", {id: "timeout", name: "timeout"}, ["auto_play", "bot", "forfeit"].map(o =>
        h("option", {value: o, class: o === "forfeit" ? "card-only" : null}, t(`timeout_${o}`))))),
    h("button", {type: "submit", class: "primary"}, t("open_table")));
  drawSeats();
  return form;
}

async function openTable(form) {
  const f = form.elements;
  const game = f.game.value;
  const count = game === "balut" ? Number(f.players.value) : 4;
  try {
    const seats = [me.user_id];
    for (let k = 1; k < count; k++) {
      if (f[`seat-${k}`].value === "bot") { seats.push("bot"); continue; }
      const login = f[`login-${k}`].value.trim();
      if (!login) throw new Error(t("name_a_friend"));
      seats.push((await get(`/accounts/${encodeURIComponent(login)}`)).user_id);
    }
    const clock = Number(f.clock.value);
    const body = {seats, game, profile: f.profile.value, bot_level: f.bot_level.value,
                  on_timeout: game === "balut" && f.timeout.value === "forfeit" ? "auto_play" : f.timeout.value};
    if (clock) body.turn_seconds = clock;
    if (game !== "balut") {
      body.hands_policy = f.hands.value;
      if (f.hands.value === "always") body.delay_seconds = 1800;       // every hand shown: half an hour late
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
  fill(account, accountEl());
  if (!me) { fill(main, signInEl()); return; }
  if (!lobby) return;
  fill(main, lobbyEl());
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
  if (me) await load();
}

setUp();
onChange(render);
start().catch(error => fill(main, h("p", {class: "error", role: "alert"}, `${t("error")}: ${error.message}`)));
// The lobby is read again every 15 s (an invitation or a match may arrive) and when the page comes back.
setInterval(() => { if (me && document.visibilityState === "visible") load().catch(() => {}); }, 15000);
