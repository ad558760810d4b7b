// The evaluation bar and curve of a deal (GET /tables/{id}/deals/{n}/evaluation): who is expected to score what
// by the deal's end and the buyer's chance, drawn as a bar on a table and as a curve under a replay, the moment
// the deal turned marked. The server decides what a watcher may see ("open": every hand; "public": the cards
// played); this module draws what it is sent.
import {get} from "./api.js";
import {h} from "./cards.js";
import {t} from "./i18n.js";
import "./words_review.js";

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) el.setAttribute(k, v);
  el.append(...children.flat().filter(Boolean));
  return el;
}

const one = x => x.toFixed(1);
const rtl = () => document.documentElement.dir === "rtl";
const textOf = x => [x].flat(Infinity).map(p => typeof p === "string" ? p : p?.textContent ?? "").join("");
const percent = x => `${Math.round(x * 100)}%`;

// A deal's evaluation, asked again while the workers are still evaluating it (`positions` not all there).
export async function dealEvaluation(table, deal) {
  return get(`/tables/${encodeURIComponent(table)}/deals/${deal}/evaluation`);
}

// The bar: each team's expected GP of the deal as a share of the bar, the figures, the buyer's chance, and
// what the figures are made from.
export function barEl(value, basis, teamName, buyerTeam) {
  if (!value) return h("p", {class: "eval-bar pending", id: "eval-bar"}, t("eval_waiting"));
  const [a, b] = value.scores;
  const share = a + b > 0 ? a / (a + b) : 0.5;
  return h("figure", {class: "eval-bar", id: "eval-bar", "data-margin": value.margin.toFixed(2),
                      "data-made": value.made.toFixed(3), "data-basis": basis},
    // Drawn in SVG: the pages' content policy allows no inline style, and a bar's length is its data.
    svg("svg", {class: "eval-track", viewBox: "0 0 1000 20", preserveAspectRatio: "none", role: "img",
                "aria-label": t("eval_aria", {a: textOf(teamName(0)), x: one(a), b: textOf(teamName(1)), y: one(b)})},
      svg("rect", {class: "eval-side team-0", x: rtl() ? (1 - share) * 1000 : 0, y: 0, width: share * 1000, height: 20}),
      svg("rect", {class: "eval-side team-1", x: rtl() ? 0 : share * 1000, y: 0, width: (1 - share) * 1000, height: 20}),
      svg("line", {class: "eval-mid", x1: 500, x2: 500, y1: 0, y2: 20})),
    h("figcaption", {},
      h("span", {class: "eval-team"}, teamName(0), " ", h("bdi", {dir: "ltr"}, one(a))), " – ",
      h("span", {class: "eval-team"}, h("bdi", {dir: "ltr"}, one(b)), " ", teamName(1)),
      buyerTeam === null ? null : [" · ", h("span", {id: "eval-made"}, t("eval_made", {p: percent(value.made)}))],
      " · ", h("span", {class: "muted", id: "eval-basis"}, t(basis === "open" ? "eval_open" : "eval_public"))));
}

// The curve: team 0's expected margin after each position (up: team 0 ahead), the turning point marked, the
// position shown now (`at`, a version) ringed; a point clicked calls `pick(version)`.
export function curveEl(evaluation, {at = null, pick = null, teamName, marks = []} = {}) {
  const points = evaluation.points;
  if (!points.length) return h("p", {class: "eval-curve pending", id: "eval-curve"}, t("eval_waiting"));
  const W = 640, H = 180, PAD = 14;
  const top = Math.max(16, ...points.map(p => Math.abs(p.value.margin)));
  const x = i => PAD + (points.length > 1 ? i * (W - 2 * PAD) / (points.length - 1) : (W - 2 * PAD) / 2);
  const y = m => H / 2 - m * (H / 2 - PAD) / top;
  const line = points.map((p, i) => `${x(i).toFixed(1)},${y(p.value.margin).toFixed(1)}`).join(" ");
  const turning = points.findIndex(p => p.version === evaluation.turning);
  const marked = new Map(marks.map(m => [m.version, m.mark]));
  const picture = svg("svg", {viewBox: `0 0 ${W} ${H}`, class: "eval-svg", role: "img",
                             "aria-label": t("eval_curve_aria", {n: points.length})},
    svg("rect", {x: 0, y: 0, width: W, height: H / 2, class: "eval-half team-0"}),
    svg("rect", {x: 0, y: H / 2, width: W, height: H / 2, class: "eval-half team-1"}),
    svg("line", {x1: PAD, x2: W - PAD, y1: H / 2, y2: H / 2, class: "eval-zero"}),
    svg("polyline", {points: line, class: "eval-line"}),
    points.map((p, i) => {
      const mark = marked.get(p.version);
      const dot = svg("circle", {cx: x(i), cy: y(p.value.margin), r: i === turning ? 7 : mark ? 5 : 3.5,
        class: `eval-dot${i === turning ? " turning" : ""}${mark ? ` mark-${mark}` : ""}${p.version === at ? " now" : ""}`,
        "data-version": p.version, tabindex: pick ? 0 : null},
        svg("title", {}, `${t("eval_position", {n: i + 1})}: ${one(p.value.margin)} · ${t("eval_made", {p: percent(p.value.made)})}`));
      if (pick) {
        dot.addEventListener("click", () => pick(p.version));
        dot.addEventListener("keydown", e => { if (e.key === "Enter") pick(p.version); });
      }
      return dot;
    }));
  return h("figure", {class: "eval-curve", id: "eval-curve", "data-points": points.length,
                      "data-turning": evaluation.turning ?? ""},
    picture,
    h("figcaption", {}, [
      teamName ? h("span", {class: "team-0-key"}, "▲ ", teamName(0)) : null,
      teamName ? h("span", {class: "team-1-key"}, "▼ ", teamName(1)) : null,
      turning >= 0 ? h("span", {id: "turning-note"}, t("eval_turned", {n: turning + 1})) : null,
      evaluation.points.length < evaluation.positions ? t("eval_working") : null,
      h("span", {class: "muted"}, t(evaluation.basis === "open" ? "eval_open" : "eval_public")),
    ].filter(Boolean).flatMap((part, k) => k ? [" · ", part] : [part])));
}
