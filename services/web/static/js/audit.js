// The audit of a deal: a stored one (?table=T&deal=N: the hash chain, the signed receipt and checkpoint, the seed
// against its commitment, the rules replayed) or any record file one uploads (baloot-hand/1, balut-game/1,
// replayed by the server as `baloot audit` does). Players named as the table seats them; the score broken down
// per team; the receipt's signature checked here, in the browser, against the server's published key (Web
// Crypto's Ed25519), and the commands to check the rest on one's own machine; the record to download.
import {download, get, sendText, userNames} from "./api.js";
import {fill, h, suitName} from "./cards.js";
import {lang, onChange, setUp, t} from "./i18n.js";
import {joined, say, who} from "./bidi.js";
import "./words_audit.js";

const main = document.getElementById("main");
const params = new URLSearchParams(location.search);
const table = params.get("table"), deal = params.get("deal");
let audit = null, players = null, championship = null, record = null, browserCheck = null;
let uploaded = null, uploadError = null, failed = null;
// The server's seed check, in the reader's language (the API's words stay the API's).
const SEED = {"seed matches the commitment and the dealt hands": "seed_ok",
  "seed does NOT match the commitment": "seed_not_commitment", "seed does NOT give the dealt deck": "seed_not_deck",
  "seed not revealed yet": "seed_not_revealed", "no seed commitment (explicit deck)": "seed_explicit"};
const GOOD = new Set(["matches", "included", "seed_ok", "signature_ok"]), BAD = new Set(["bad_signature", "rewritten",
  "seed_not_commitment", "seed_not_deck", "signature_bad"]);
const state = finding => GOOD.has(finding) ? "ok" : BAD.has(finding) ? "bad" : "";
const RECEIPT_DOMAIN = "baloot-receipt/1\n";

function anchorFact(id, label, finding, detail) {
  return [h("dt", {}, t(label)), h("dd", {id, class: state(finding), title: detail}, t(`anchor_${finding}`))];
}

// ---- names ----

const seatName = seat => players?.[seat] ?? `${t("seat")} ${seat + 1}`;
// A team by its two players, each name isolated (a Latin name with digits keeps its order in Arabic).
const teamName = team => players ? say("audit_team_of_two", {a: players[team], b: players[team + 2]})
  : t(team ? "audit_team_b" : "audit_team_a");

// The server's lines say "seat 2" and "team A": here they say who, each name isolated.
function named(line) {
  const text = said(line), out = [];
  const found = /\(team ([AB])\)|\bteam ([AB])\b|\bseat (\d)\b/g;
  let at = 0, m;
  while ((m = found.exec(text))) {
    out.push(text.slice(at, m.index));
    if (m[1]) out.push("(", teamName(m[1] === "A" ? 0 : 1), ")");
    else if (m[2]) out.push(teamName(m[2] === "A" ? 0 : 1));
    else out.push(who(seatName(Number(m[3]))));
    at = found.lastIndex;
  }
  out.push(text.slice(at));
  return out.flat().filter(part => part !== "");
}

// The server's audit lines (the same as `baloot audit` prints) in the reader's language: each kind of line the
// engine writes has its words here; a line of no known kind stays as the server wrote it. Cards keep their
// symbols after the rank in Arabic too (isolated left to right).
const card = c => `\u2066${c}\u2069`;
const word = w => t(w);        // a bid or a double: the game's own word (pass, hokum, double, gahwa…)
const LINES = [
  [/^seat (\d) bids (\w+)(?: ([SHDC]))?$/, (m) => t("line_bids", {seat: `seat ${m[1]}`, bid: word(m[2]),
    suit: m[3] ? ` ${suitName(m[3])}` : ""})],
  [/^seat (\d) says (\w+)(?: \((closed|open)\))?$/, (m) => t("line_says", {seat: `seat ${m[1]}`, call: word(m[2]),
    how: m[3] ? ` (${t(m[3] === "closed" ? "closed" : "line_open")})` : ""})],
  [/^seat (\d) declares (.+)$/, (m) => t("line_declares", {seat: `seat ${m[1]}`, cards: m[2].split(" ").map(card).join(" ")})],
  [/^seat (\d) plays (\S+)( announcing Baloot \(بلوت\))?(?:  ← illegal: (.*))?$/, (m) => t("line_plays", {
    seat: `seat ${m[1]}`, card: card(m[2])}) + (m[3] ? ` ${t("line_baloot")}` : "") + (m[4] ? `  ← ${t("line_illegal")}: ${m[4]}` : "")],
  [/^seat (\d) claims Sawa \(سوا\): (holds|FALSE)$/, (m) => t(m[2] === "holds" ? "line_sawa_holds" : "line_sawa_false",
    {seat: `seat ${m[1]}`})],
  [/^seat (\d) calls Qayd \(قيد\) on action (\d+)$/, (m) => t("line_qayd", {seat: `seat ${m[1]}`, index: m[2]})],
  [/^trick (\d) to seat (\d) \(team ([AB])\), (\d+) points(?: with the last-trick (\d+))?$/, (m) => t("line_trick",
    {n: m[1], seat: `seat ${m[2]}`, team: `(team ${m[3]})`, points: m[4]}) + (m[5] ? ` ${t("line_last_trick", {n: m[5]})}` : "")],
  [/^contract: (Hokum ([SHDC])|Ashkal \(Sun\)|Sun) bought by seat (\d) \(team ([AB])\)(.*)$/, (m) => t("line_contract", {
    name: m[2] ? `${t("hokum")} ${suitName(m[2])}` : m[1] === "Sun" ? t("sun") : t("ashkal"), seat: `seat ${m[3]}`,
    team: `(team ${m[4]})`}) + m[5].replace(/, doubled ×(\d)/, (_, x) => `، ${t("line_doubled", {x})}`)
      .replace(", Gahwa (قهوة)", `، ${t("gahwa")}`).replace(", closed (مقفول)", `، ${t("closed")}`)],
  [/^card GP (\d+)\/(\d+) \+ projects (\d+)\/(\d+) = (\d+)\/(\d+)$/, (m) => t("line_card_gp", {
    a: m[1], b: m[2], pa: m[3], pb: m[4], ga: m[5], gb: m[6]})],
  [/^the buyer's team has fewer GP: it fails \(خسران\)$/, () => t("line_buyer_fails")],
  [/^Baloot \(بلوت\) (\d+)\/(\d+), never multiplied$/, (m) => t("line_baloot_points", {a: m[1], b: m[2]})],
  [/^the deal is void \((\w+)\)$/, (m) => t("line_void", {reason: m[1]})],
];
// English keeps the engine's words, but a suit is its symbol and name ("hokum ♣ clubs", not "hokum C").
function said(line) {
  if (lang() === "en") return line.replace(/\b([Hh]okum) ([SHDC])\b/g, (_, w, x) => `${w} ${suitName(x)}`);
  for (const [pattern, say] of LINES) {
    const m = pattern.exec(line);
    if (m) return say(m);
  }
  return line;
}

// ---- the receipt, checked here ----

const bytes = hex => new Uint8Array(hex.match(/../g).map(x => parseInt(x, 16)));

async function checkReceipt(receipt) {
  if (!receipt) return {finding: "no_receipt"};
  if (!crypto.subtle) return {finding: "no_webcrypto"};
  const key = await get("/log/key");
  const message = new TextEncoder().encode(RECEIPT_DOMAIN + JSON.stringify(
    [receipt.stream, receipt.version, receipt.hash, receipt.kind, receipt.ref]));
  try {
    const k = await crypto.subtle.importKey("raw", bytes(key.public_key), {name: "Ed25519"}, false, ["verify"]);
    const ok = await crypto.subtle.verify({name: "Ed25519"}, k, bytes(receipt.signature), message);
    return {finding: ok && key.key_id === receipt.key_id ? "signature_ok" : "signature_bad", key: key.key_id};
  } catch {
    return {finding: "no_webcrypto"};
  }
}

// ---- the report ----

function breakdownEl(r) {
  if (!r.game_points) return null;
  const pair = (label, p) => p ? h("tr", {}, h("th", {scope: "row"}, t(label)), h("td", {}, String(p[0])), h("td", {}, String(p[1]))) : null;
  const projects = [0, 1].map(team => r.projects.filter(p => p.seat % 2 === team).reduce((n, p) => n + p.value, 0));
  return h("table", {class: "list breakdown", id: "breakdown"},
    h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", {}, teamName(0)), h("th", {}, teamName(1)))),
    h("tbody", {}, pair("card_points", r.card_points), pair("audit_card_gp", r.card_gp),
      pair("audit_projects", projects), pair("baloot", r.baloot), pair("game_points", r.game_points)),
    h("caption", {}, [r.contract ? `${t("contract")}: ${t(r.contract.ashkal ? "ashkal" : r.contract.type)}` : "",
                      r.contract?.type === "hokum" && r.contract.suit ? ` ${suitName(r.contract.suit)}` : "",
                      r.multiplier > 1 ? ` ×${r.multiplier}` : "", r.kaboot ? ` · ${t("kaboot")}` : "",
                      r.failed ? ` · ${t("failed")}` : ""].join("")));
}

function violationsEl(r, id) {
  return r.violations.length ? h("table", {class: "list", id},
    h("thead", {}, h("tr", {}, [t("index"), t("seat"), t("rule"), ""].map(x => h("th", {}, x)))),
    h("tbody", {}, r.violations.map(v => h("tr", {"data-index": v.index, "data-rule": v.rule},
      h("td", {}, v.index < 0 ? "—" : String(v.index)), h("td", {}, v.seat === null ? "—" : who(seatName(v.seat))),
      h("td", {}, h("code", {}, v.rule)), h("td", {}, named(v.message))))))
    : h("p", {id}, t("no_violations"));
}

// The server numbers its lines ("#12 seat 1 plays …"): the list says the number once, as the action's index.
function actionsEl(lines) {
  return h("ul", {class: "actions", id: "actions"}, lines.map(line => {
    const m = line.match(/^#(\d+) (.*)$/);
    return h("li", {class: m ? "action" : "consequence"}, m ? [h("span", {class: "index"}, m[1]), " ", named(m[2])] : named(line.trim()));
  }));
}

function reportEl(r, ids = {}) {
  return [
    h("h2", {}, t("audit_score")), breakdownEl(r) ?? h("p", {}, "—"),
    r.notes?.length ? h("ul", {class: "notes", id: ids.notes ?? "notes"}, r.notes.map(n => h("li", {}, named(n)))) : null,
    h("h2", {}, t("violations")), violationsEl(r, ids.violations ?? "violations"),
    r.qayd ? [h("h2", {}, t("verdicts")), r.qayd.length ? h("ul", {id: "verdicts"}, r.qayd.map(q => h("li", {},
      `${t("index")} ${q.index}: ${q.proven ? t("proven") : t("not_proven")}`, q.rule ? [" · ", h("code", {}, q.rule)] : "",
      ` — ${named(q.message)}`))) : h("p", {}, "—")] : null,
    h("h2", {}, t("actions")), actionsEl(r.actions)];
}

function receiptEl() {
  if (!record) return null;
  const rc = record.receipt;
  const finding = browserCheck?.finding ?? "checking";
  return [h("h2", {}, t("audit_yourself")),
    h("dl", {class: "facts"},
      h("dt", {}, t("audit_receipt_here")), h("dd", {id: "receipt-browser", class: state(finding)}, t(`audit_${finding}`),
        browserCheck?.key ? ` (${t("audit_key")} ${browserCheck.key})` : "")),
    h("p", {class: "hint"}, t("audit_commands")),
    h("pre", {id: "commands"}, [`baloot audit ${table}-deal-${deal}.json`,
      rc ? `baloot verify --stream ${rc.stream}` : null].filter(Boolean).join("\n"))];
}

function uploadEl() {
  return h("section", {class: "upload", id: "upload"},
    h("h2", {}, t("audit_upload")), h("p", {class: "hint"}, t("audit_upload_hint")),
    h("input", {type: "file", id: "record-file", accept: ".json,application/json", onchange: async e => {
      const file = e.target.files[0];
      if (!file) return;
      uploaded = null; uploadError = null;
      try {
        uploaded = {name: file.name, report: await sendText("POST", "/audit", await file.text(), "application/json")};
      } catch (error) {
        uploadError = {rule: error.rule ?? "", field: error.field ?? "", text: error.message};
      }
      render();
    }}),
    uploadError ? h("p", {class: "error", role: "alert", id: "upload-error", "data-rule": uploadError.rule},
      h("code", {}, uploadError.rule), uploadError.field ? ` (${uploadError.field})` : "", ` — ${uploadError.text}`) : null,
    uploaded ? h("div", {id: "uploaded", "data-valid": String(uploaded.report.valid)},
      h("h3", {}, `${uploaded.name} · ${uploaded.report.format ?? "baloot-hand/1"}`),
      h("p", {class: uploaded.report.valid ? "ok" : "bad", id: "uploaded-valid"},
        uploaded.report.valid ? t("audit_record_valid") : t("audit_record_invalid", {
          index: uploaded.report.violations[0]?.index ?? "—", rule: uploaded.report.violations[0]?.rule ?? ""})),
      reportEl(uploaded.report, {violations: "uploaded-violations", notes: "uploaded-notes"})) : null);
}

function render() {
  if (failed) { fill(main, h("p", {class: "error", role: "alert"}, `${t("error")}: ${failed}`), uploadEl()); return; }
  if (!table) { fill(main, h("h1", {}, t("audit_title")), uploadEl()); return; }
  if (!audit) return;
  const r = audit.report;
  fill(main,
    h("h1", {}, `${t("audit")} — ${t("deal")} ${deal}`),
    h("p", {class: "hint", id: "who"}, joined([championship, ...(players ?? [table])].filter(Boolean), " · ")),
    h("dl", {class: "facts"},
      h("dt", {}, t("chain")), h("dd", {id: "chain", class: audit.chain_intact ? "ok" : "bad"},
        audit.chain_intact ? t("chain_ok") : `${t("chain_broken")} ${audit.first_broken_version}`),
      anchorFact("receipt", "receipt", audit.anchor.receipt, audit.anchor.receipt_detail),
      anchorFact("checkpoint", "checkpoint", audit.anchor.checkpoint, audit.anchor.checkpoint_detail),
      h("dt", {}, t("seed")), h("dd", {id: "seed-check", class: state(SEED[audit.seed_check]), title: audit.seed_check},
        SEED[audit.seed_check] ? t(SEED[audit.seed_check]) : audit.seed_check),
      h("dt", {}, t("valid")), h("dd", {id: "valid", class: r.valid ? "ok" : "bad"}, r.valid ? "✓" : "✗")),
    ...reportEl(r),
    ...(receiptEl() ?? []),
    h("p", {}, h("button", {type: "button", id: "download",
      onclick: () => download(`/tables/${table}/deals/${deal}/record`, `${table}-deal-${deal}.json`)}, t("download")),
      " ", h("a", {href: `/watch/table.html?id=${table}`}, t("table"))),
    uploadEl());
}

async function load() {
  if (!table) { render(); return; }
  audit = await get(`/tables/${table}/deals/${deal}/audit`);
  render();
  const view = await get(`/tables/${table}/view`);
  const names = await userNames(view.seats.filter(u => u !== "bot"));
  players = view.seats.map((u, s) => names(u)?.name ?? `${t("seat")} ${s + 1}`);
  if (view.terms?.championship_id) {
    championship = (await get(`/championships/${encodeURIComponent(view.terms.championship_id)}`)).name;
  }
  render();
  record = await get(`/tables/${table}/deals/${deal}/record`);
  browserCheck = await checkReceipt(record.receipt);
  render();
}

setUp();
onChange(render);
load().catch(error => { failed = error.message; render(); });
