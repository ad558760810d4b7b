// The start page: championships (their format, status and champion in the reader's words), the daily deal of
// each rule profile, and the live and finished tables, each named by its players and its championship.
import {get, userNames} from "./api.js";
import {fill, h} from "./cards.js";
import {onChange, setUp, t} from "./i18n.js";
import {joined, say, who} from "./bidi.js";
import "./words_watch.js";

const main = document.getElementById("main");
let data = null, nameOf = () => undefined;
// The daily deal's rule profiles (docs/daily.md); the day is UTC, as the server's.
const PROFILES = ["saudi", "belote_classic", "belote_declarations"];
// The dice game's profiles (docs/balut.md): a table listed with one of them is a Balut table.
const BALUT_PROFILES = ["stc", "ibf"];
const today = () => new Date().toISOString().slice(0, 10);
const person = id => nameOf(id)?.name ?? t("someone");

// A card table's two teams (seats 0 and 2, 1 and 3); a dice table's players in turn; each name isolated.
function playersText(tb) {
  if (BALUT_PROFILES.includes(tb.profile)) return joined(tb.seats.map(person), " · ");
  const team = k => say("team_of_players", {a: person(tb.seats[k]), b: person(tb.seats[k + 2])});
  return [team(0), ` ${t("versus")} `, team(1)];
}

function tablesList(tables, championships, id) {
  if (!tables.length) return h("p", {id}, t("none"));
  return h("ul", {class: "tables", id}, tables.map(tb => {
    const champ = championships.get(tb.championship_id);
    return h("li", {},
      h("a", {href: `/watch/table.html?id=${tb.table_id}`, "data-table": tb.table_id}, playersText(tb)),
      tb.championship_id ? h("span", {class: "muted"}, " · ", champ ? who(champ) : t("a_championship"),
        `, ${t("match_word")} `, who(tb.match_id)) : null,
      BALUT_PROFILES.includes(tb.profile) ? h("span", {class: "game", "data-game": "balut"},
        ` · ${t("balut_game")} (${tb.profile.toUpperCase()})`)
        : tb.profile !== "saudi" ? h("span", {class: "muted"}, ` · ${t(`profile_${tb.profile}`)}`) : null);
  }));
}

function render() {
  if (!data) return;
  const [champs, live, finished] = data;
  const championships = new Map(champs.map(c => [c.championship_id, c.name]));
  fill(main,
    // Where a visitor goes from here: to play, to organise, to today's deal.
    h("nav", {class: "start-links", id: "start-links", "aria-label": t("start_links")},
      h("a", {href: "/play/", id: "to-play"}, h("strong", {}, t("start_play")), h("span", {}, t("start_play_hint"))),
      h("a", {href: "/organise/", id: "to-organise"}, h("strong", {}, t("start_organise")),
        h("span", {}, t("start_organise_hint"))),
      h("a", {href: `/watch/daily.html?day=${today()}&profile=saudi`, id: "to-daily"}, h("strong", {}, t("start_daily")),
        h("span", {}, t("start_daily_hint")))),
    h("h1", {}, t("championships")),
    champs.length ? h("table", {class: "list", id: "championships"},
      h("thead", {}, h("tr", {}, ["name", "format", "status", "teams", "rounds", "champion"].map(k =>
        h("th", {class: k === "rounds" ? "wide-only" : null}, t(k))))),
      h("tbody", {}, champs.map(c => h("tr", {"data-championship": c.championship_id},
        h("td", {}, h("a", {href: `/watch/championship.html?id=${c.championship_id}`}, who(c.name))),
        h("td", {}, t(`format_${c.format}`)), h("td", {}, t(`status_${c.status}`)), h("td", {}, String(c.teams)),
        h("td", {class: "wide-only"}, String(c.rounds)), h("td", {}, c.champion_name ? who(c.champion_name) : "—")))))
      : h("p", {}, t("none")),
    h("p", {}, h("a", {href: "/watch/ratings.html?game=baloot", id: "ratings-link"}, t("ratings_link"))),
    h("h2", {}, t("daily_deals")),
    h("ul", {id: "daily"}, PROFILES.map(p => h("li", {}, h("a", {href: `/watch/daily.html?day=${today()}&profile=${p}`,
      "data-profile": p}, t(`profile_${p}`))))),
    h("h2", {}, t("live_tables")), tablesList(live, championships, "live"),
    h("h2", {}, t("finished_tables")), tablesList(finished, championships, "finished"));
}

setUp();
onChange(render);
Promise.all([get("/championships"), get("/tables?status=live&limit=50"), get("/tables?status=finished&limit=50")])
  .then(async d => {
    nameOf = await userNames(d.slice(1).flat().flatMap(tb => tb.seats));
    data = d;
    render();
  })
  .catch(error => fill(main, h("p", {class: "error"}, `${t("error")}: ${error.message}`)));
