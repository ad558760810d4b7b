// The public API: as the person signed in (a session cookie, POST /session) or else as a spectator with a
// token of our own (POST /users); JSON reads and writes, and the live stream.
import {t} from "./i18n.js";

const KEY = "baloot.watch.token";
const CSRF_COOKIE = "baloot_csrf";
let account;                 // undefined: not asked yet; null: nobody signed in; else GET /session's answer

// The CSRF token the server's cookie holds: sent back on every request that changes something.
function csrf() {
  const found = document.cookie.split("; ").find(c => c.startsWith(`${CSRF_COOKIE}=`));
  return found ? {"X-CSRF-Token": decodeURIComponent(found.slice(CSRF_COOKIE.length + 1))} : {};
}

async function problem(r) {
  let body = {};
  try { body = await r.json(); } catch { /* not a problem document */ }
  const error = new Error(body.detail || `${r.status} ${r.statusText}`);
  error.status = r.status;
  error.rule = body.rule;
  error.field = body.field;
  error.details = body.details;            // what an engine's refusal names (seat, cards), for the page's own words
  error.errors = body.errors;              // a file's bad lines (an import's 422 bad_import)
  error.errorCount = body.error_count;
  return error;
}

const hasCookie = name => document.cookie.split("; ").some(c => c.startsWith(`${name}=`));

// Who is signed in on this browser (null: nobody), asked once per page, and only if the server's
// "baloot_signed_in" cookie says a session may be there.
export async function signedIn(refresh = false) {
  if (account === undefined || refresh) {
    if (!hasCookie("baloot_signed_in")) account = null;
    else {
      const r = await fetch("/session", {headers: {Accept: "application/json"}});
      account = r.ok ? await r.json() : null;
      if (!r.ok) document.cookie = "baloot_signed_in=; Max-Age=0; path=/; SameSite=Lax";
    }
    signOutButton();
  }
  return account;
}

// Every page where a person is signed in offers to sign out in its header, next to the language button: the
// pages need no code of their own for it (the header is theirs, this button is everyone's). Signed out, he
// is taken to the lobby's sign-in.
function signOutButton() {
  const old = document.getElementById("sign-out");
  if (!account) { old?.remove(); return; }
  if (old) return;
  const lang = document.getElementById("lang");
  if (!lang) return;
  const button = Object.assign(document.createElement("button"), {type: "button", id: "sign-out",
                                                                   className: "sign-out", textContent: t("sign_out")});
  button.dataset.i18n = "sign_out";           // said again in the other language when the reader switches
  button.addEventListener("click", async () => {
    button.disabled = true;
    try { await session("DELETE", "/session"); } catch { /* already signed out: the lobby says so */ }
    location.href = "/play/";
  });
  lang.before(button);
}

// A spectator's token user: a name of its own (a person's name is nobody else's: 409 name_taken).
async function signUp() {
  const tag = Array.from(crypto.getRandomValues(new Uint8Array(4)), b => b.toString(16).padStart(2, "0")).join("");
  const r = await fetch("/users", {
    method: "POST", headers: {"content-type": "application/json", ...csrf()},
    body: JSON.stringify({name: `spectator ${tag}`, kind: "human"}),
  });
  if (!r.ok) throw await problem(r);
  const token = (await r.json()).token;
  localStorage.setItem(KEY, token);
  return token;
}

async function token() {
  return localStorage.getItem(KEY) || signUp();
}

// fetch as the person signed in (his cookie), else with the spectator's bearer token, replaced once if refused.
async function authorized(path, init = {}) {
  for (let attempt = 0; ; attempt++) {
    const me = await signedIn();
    const headers = {...(init.headers || {}), ...csrf(), ...(me ? {} : {Authorization: `Bearer ${await token()}`})};
    const r = await fetch(path, {...init, headers});
    if (r.status === 401 && attempt === 0) {
      if (me) { account = null; onSignedOut(); } else localStorage.removeItem(KEY);
      continue;
    }
    if (!r.ok) throw await problem(r);
    return r;
  }
}

let onSignedOut = () => {};
// What a page does when its session ends under it (expired, signed out elsewhere): the play pages sign in again.
export function whenSignedOut(callback) { onSignedOut = callback; }

// A request that changes something, with a JSON body; the answer's JSON (null for 204).
export async function send(method, path, body) {
  const init = {method, headers: body === undefined ? {} : {"content-type": "application/json"}};
  if (body !== undefined) init.body = JSON.stringify(body);
  const r = await authorized(path, init);
  return r.status === 204 ? null : r.json();
}

// A request whose body is a file's text (a CSV import), sent as it is; the answer's JSON.
export async function sendText(method, path, text, type = "text/csv; charset=utf-8") {
  return (await authorized(path, {method, headers: {"content-type": type}, body: text})).json();
}

// Sign in, sign up, sign out: the session cookie is the server's to set and clear (the page asks again who is
// signed in: signedIn(true)).
export async function session(method, path, body) {
  await fetch("/health");                       // the CSRF cookie, if this browser has none yet
  const r = await fetch(path, {method, headers: {"content-type": "application/json", ...csrf()},
                               body: body === undefined ? undefined : JSON.stringify(body)});
  if (!r.ok) throw await problem(r);
  account = undefined;
  return r.status === 204 ? null : r.json();
}

export async function get(path) {
  return (await authorized(path)).json();
}

export async function download(path, filename) {
  const blob = await (await authorized(path)).blob();
  const a = Object.assign(document.createElement("a"), {href: URL.createObjectURL(blob), download: filename});
  document.body.append(a);
  a.click();
  a.remove();
}

// Server-Sent Events read with fetch (EventSource cannot send a bearer token): calls onEvent(event, data, id)
// for each message after version `from`; reconnects after the last id seen until an `end` event. Returns a stop
// function.
export function follow(path, onEvent, onState = () => {}, from = 0) {
  let after = Math.max(0, from), stopped = false, away = false, controller = null;
  async function run() {
    while (!stopped && !away) {
      controller = new AbortController();
      try {
        onState("live");
        const r = await authorized(`${path}?after=${after}`, {signal: controller.signal});
        const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const {value, done} = await reader.read();
          if (done) break;
          buffer += value.replaceAll("\r\n", "\n");
          let cut;
          while ((cut = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const message = {event: "message", data: [], id: null};
            for (const line of block.split("\n")) {
              if (!line || line.startsWith(":")) continue;
              const [field, ...rest] = line.split(":");
              const text = rest.join(":").replace(/^ /, "");
              if (field === "data") message.data.push(text);
              else if (field === "event") message.event = text;
              else if (field === "id") message.id = text;
            }
            if (message.id !== null) after = Number(message.id);
            if (message.event === "end") { stopped = true; onState("ended"); return; }
            onEvent(message.event, message.data.join("\n"), message.id);
          }
        }
      } catch (error) {
        if (stopped || away) return;
        if (error.status && error.status < 500 && error.status !== 429) { onState("error", error); return; }
      }
      if (!stopped && !away) { onState("reconnecting"); await new Promise(done => setTimeout(done, 2000)); }
    }
  }
  // A page left for another lets its stream go: kept in the back-forward cache it would hold one of the six
  // connections a browser opens to a host, and the next page's requests would wait for it. Brought back, it
  // follows on from the last version it showed.
  addEventListener("pagehide", () => { away = true; if (controller) controller.abort(); });
  addEventListener("pageshow", event => { if (event.persisted && away && !stopped) { away = false; run(); } });
  run();
  return () => { stopped = true; if (controller) controller.abort(); };
}

// Public names of users by id (cached for the page's life). The tables' bots ("bot-<level>") are named in the
// reader's language, as the page is.
const names = new Map();
const BOT = /^bot-(easy|simple|normal|hard|strong)$/;
export async function userNames(ids) {
  const missing = [...new Set(ids.filter(id => id && !names.has(id)))];
  for (let i = 0; i < missing.length; i += 100) {
    for (const u of await get(`/users?ids=${missing.slice(i, i + 100).join(",")}`)) names.set(u.user_id, u);
  }
  return id => {
    const u = names.get(id), bot = BOT.exec(id ?? "");
    return u && bot ? {...u, name: t("bot_of_level", {level: t(`level_${bot[1]}`)})} : u;
  };
}
