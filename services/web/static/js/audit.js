// The audit of a stored deal: the hash chain, the signed receipt and checkpoint, the seed against its commitment, violations and Qayd verdicts
// named with their rule, and the baloot-hand/1 record to download.
import {download, get} from "./api.js";
import {fill, h} from "./cards.js";
import {onChange, setUp, t} from "./i18n.js";

const main = document.getElementById("main");
const params = new URLSearchParams(location.search);
const table = params.get("table"), deal = params.get("deal");
let audit = null;
// The server's seed check, in the reader's language (the API's words stay the API's).
const SEED = {"seed matches the commitment and the dealt hands": "seed_ok",
  "seed does NOT match the commitment": "seed_not_commitment", "seed does NOT give the dealt deck": "seed_not_deck",
  "seed not revealed yet": "seed_not_revealed", "no seed commitment (explicit deck)": "seed_explicit"};
const GOOD = new Set(["matches", "included", "seed_ok"]), BAD = new Set(["bad_signature", "rewritten",
  "seed_not_commitment", "seed_not_deck"]);
const state = finding => GOOD.has(finding) ? "ok" : BAD.has(finding) ? "bad" : "";

function anchorFact(id, label, finding, detail) {
  return [h("dt", {}, t(label)), h("dd", {id, class: state(finding), title: detail}, t(`anchor_${finding}`))];
}

function render() {
  if (!audit) return;
  const r = audit.report;
  fill(main, 
    h("h1", {}, `${t("audit")} — ${t("table")} ${table}, ${t("deal")} ${deal}`),
    h("dl", {class: "facts"},
      h("dt", {}, t("chain")), h("dd", {id: "chain", class: audit.chain_intact ? "ok" : "bad"},
        audit.chain_intact ? t("chain_ok") : `${t("chain_broken")} ${audit.first_broken_version}`),
      anchorFact("receipt", "receipt", audit.anchor.receipt, audit.anchor.receipt_detail),
      anchorFact("checkpoint", "checkpoint", audit.anchor.checkpoint, audit.anchor.checkpoint_detail),
      h("dt", {}, t("seed")), h("dd", {id: "seed-check", class: state(SEED[audit.seed_check]), title: audit.seed_check},
        SEED[audit.seed_check] ? t(SEED[audit.seed_check]) : audit.seed_check),
      h("dt", {}, t("valid")), h("dd", {id: "valid", class: r.valid ? "ok" : "bad"}, r.valid ? "✓" : "✗"),
      h("dt", {}, t("game_points")), h("dd", {}, r.game_points ? `${r.game_points[0]} – ${r.game_points[1]}` : "—")),
    h("h2", {}, t("violations")),
    r.violations.length ? h("table", {class: "list", id: "violations"},
      h("thead", {}, h("tr", {}, [t("index"), t("seat"), t("rule"), ""].map(x => h("th", {}, x)))),
      h("tbody", {}, r.violations.map(v => h("tr", {}, h("td", {}, String(v.index)),
        h("td", {}, v.seat === null ? "—" : String(v.seat + 1)), h("td", {}, h("code", {}, v.rule)), h("td", {}, v.message)))))
      : h("p", {id: "violations"}, t("no_violations")),
    h("h2", {}, t("verdicts")),
    r.qayd.length ? h("ul", {id: "verdicts"}, r.qayd.map(q => h("li", {},
      `${t("index")} ${q.index}: ${q.proven ? t("proven") : t("not_proven")}`, q.rule ? [" · ", h("code", {}, q.rule)] : "",
      ` — ${q.message}`))) : h("p", {}, "—"),
    h("h2", {}, t("actions")), h("ol", {class: "actions", start: 0}, r.actions.map(a => h("li", {}, a))),
    ...(r.notes.length ? [h("h2", {}, t("notes")), h("ul", {}, r.notes.map(n => h("li", {}, n)))] : []),
    h("p", {}, h("button", {type: "button", id: "download",
      onclick: () => download(`/tables/${table}/deals/${deal}/record`, `${table}-deal-${deal}.json`)}, t("download")),
      " ", h("a", {href: `/watch/table.html?id=${table}`}, t("table"))));
}

setUp();
onChange(render);
get(`/tables/${table}/deals/${deal}/audit`).then(a => { audit = a; render(); })
  .catch(error => fill(main, h("p", {class: "error"}, `${t("error")}: ${error.message}`)));
