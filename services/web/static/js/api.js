// The public API as a spectator: a token of our own (POST /users), JSON reads, and the live stream.
const KEY = "baloot.watch.token";

async function signUp() {
  const r = await fetch("/users", {
    method: "POST", headers: {"content-type": "application/json"},
    body: JSON.stringify({name: "spectator", kind: "human"}),
  });
  if (!r.ok) throw await problem(r);
  const token = (await r.json()).token;
  localStorage.setItem(KEY, token);
  return token;
}

async function token() {
  return localStorage.getItem(KEY) || signUp();
}

async function problem(r) {
  let body = {};
  try { body = await r.json(); } catch { /* not a problem document */ }
  const error = new Error(body.detail || `${r.status} ${r.statusText}`);
  error.status = r.status;
  error.rule = body.rule;
  return error;
}

// fetch with the bearer token; a refused token (expired, revoked) is replaced once.
async function authorized(path, init = {}) {
  for (let attempt = 0; ; attempt++) {
    const headers = {...(init.headers || {}), Authorization: `Bearer ${await token()}`};
    const r = await fetch(path, {...init, headers});
    if (r.status === 401 && attempt === 0) { localStorage.removeItem(KEY); continue; }
    if (!r.ok) throw await problem(r);
    return r;
  }
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
  let after = Math.max(0, from), stopped = false, controller = null;
  async function run() {
    while (!stopped) {
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
        if (stopped) return;
        if (error.status && error.status < 500 && error.status !== 429) { onState("error", error); return; }
      }
      if (!stopped) { onState("reconnecting"); await new Promise(done => setTimeout(done, 2000)); }
    }
  }
  run();
  return () => { stopped = true; if (controller) controller.abort(); };
}

// Public names of users by id (cached for the page's life).
const names = new Map();
export async function userNames(ids) {
  const missing = [...new Set(ids.filter(id => id && !names.has(id)))];
  for (let i = 0; i < missing.length; i += 100) {
    for (const u of await get(`/users?ids=${missing.slice(i, i + 100).join(",")}`)) names.set(u.user_id, u);
  }
  return id => names.get(id);
}
