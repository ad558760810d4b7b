// A player (/watch/player.html?id=USER): his rating in each game with its uncertainty, his recent rated
// matches (each a link to its place in the championship's bracket) and the championships he played.
import {get} from "./api.js";
import {decimal, fill, h} from "./cards.js";
import {onChange, setUp, t, tOr} from "./i18n.js";
import {joined, say, who} from "./bidi.js";
import "./words_watch.js";
import "./words_review.js";

const main = document.getElementById("main");
const id = new URLSearchParams(location.search).get("id") || "";
let player = null, failure = null, accuracy = null;

// His accuracy by phase (choices with no mark) and week by week, over the analysed deals of his own tables.
function accuracyEl() {
  if (!accuracy) return null;
  const chose = accuracy.phases.some(p => p.decisions);
  const pct = x => h("bdi", {dir: "ltr"}, `${(x * 100).toFixed(0)}%`);
  return [h("h2", {}, t("accuracy")),
    chose ? h("table", {class: "list", id: "accuracy"},
      h("thead", {}, h("tr", {}, ["accuracy_phase", "accuracy_share", "accuracy_choices", "accuracy_cost", "accuracy_marks"]
        .map(k => h("th", {}, t(k))))),
      h("tbody", {}, accuracy.phases.map(p => h("tr", {"data-phase": p.phase,     // in the server's order of phases
          "data-accuracy": p.accuracy, "data-decisions": p.decisions},
        h("td", {}, t(`phase_${p.phase}`)), h("td", {}, p.decisions ? pct(p.accuracy) : "—"), h("td", {}, String(p.decisions)),
        h("td", {}, p.decisions ? decimal(p.cost) : "—"),
        h("td", {}, `${p.blunders} · ${p.mistakes} · ${p.inaccuracies}`)))))
      : h("p", {id: "accuracy"}, t("accuracy_none")),
    accuracy.weeks.length > 1 ? h("p", {class: "hint", id: "accuracy-weeks"}, `${t("accuracy_weeks")}: `,
      accuracy.weeks.map((w, k) => [k ? " · " : "", h("span", {title: t("accuracy_week", {d: w.week})}, pct(w.accuracy))])) : null,
    h("p", {class: "hint"}, t("accuracy_how"))];
}


function render() {
  if (failure) {
    fill(main, h("h1", {}, t("player")), h("p", {class: "error", id: "player-error"},
      failure.status === 404 ? t("no_player") : `${t("error")}: ${failure.message}`));
    return;
  }
  if (!player) return;
  const names = new Map(player.championships.map(c => [c.championship_id, c.name]));
  fill(main,
    h("h1", {id: "player-name"}, who(player.name)),
    h("h2", {}, t("ratings")),
    player.ratings.length ? h("table", {class: "list", id: "player-ratings"},
      h("thead", {}, h("tr", {}, ["game", "rating", "rating_parts", "games"].map(k => h("th", {}, t(k))))),
      h("tbody", {}, player.ratings.map(r => h("tr", {"data-game": r.game},
        h("td", {}, h("a", {href: `/watch/ratings.html?game=${r.game}`}, tOr(`game_${r.game}`, r.game))),
        h("td", {"data-ordinal": r.ordinal}, decimal(r.ordinal)), h("td", {class: "muted"}, decimal(r.mu), " ± ", decimal(r.sigma)),
        h("td", {}, String(r.games))))))
      : h("p", {id: "player-ratings"}, t("not_rated")),
    accuracyEl(),
    h("h2", {}, t("recent_results")),
    player.recent.length ? h("ol", {id: "recent"}, player.recent.map(m => h("li", {"data-match": m.match_id ?? "",
        "data-table": m.table_id ?? ""},
      m.match_id
        ? h("a", {href: `/watch/championship.html?id=${encodeURIComponent(m.championship_id)}&match=${encodeURIComponent(m.match_id)}`},
            names.has(m.championship_id) ? who(names.get(m.championship_id)) : t("a_championship"), ` · ${t("match_word")} `, who(m.match_id))
        : h("a", {href: `/watch/table.html?id=${encodeURIComponent(m.table_id)}`}, `${t("balut_game")} · ${t("table")}`),
      // Whom it was against: the match's other team, or the others at the dice table.
      m.opponents?.length ? [" ", h("span", {class: "opponents"},
        say(m.match_id ? "opponents" : "opponents_table", {names: joined(m.opponents, " · ")}))] : null,
      ` — ${t(m.match_id ? (m.won ? "path_won" : "path_lost") : (m.won ? "first_place" : "not_first"))} · `
        + `${t("rating_after")} `, decimal(m.mu - 3 * m.sigma))))
      : h("p", {id: "recent"}, t("none")),
    h("h2", {}, t("championships")),
    player.championships.length ? h("ul", {id: "played-in"}, player.championships.map(c =>
      h("li", {}, h("a", {href: `/watch/championship.html?id=${encodeURIComponent(c.championship_id)}`}, who(c.name)))))
      : h("p", {id: "played-in"}, t("none")));
}

setUp();
onChange(render);
Promise.all([get(`/players/${encodeURIComponent(id)}`).then(p => { player = p; }, error => { failure = error; }),
             get(`/players/${encodeURIComponent(id)}/accuracy`).then(a => { accuracy = a; }, () => {})])
  .then(() => { render(); main.dataset.loaded = "true"; });
