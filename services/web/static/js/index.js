// The start page: championships, live and finished tables.
import {get} from "./api.js";
import {fill, h} from "./cards.js";
import {onChange, setUp, t} from "./i18n.js";

const main = document.getElementById("main");
let data = null;
// The daily deal's rule profiles (docs/daily.md); the day is UTC, as the server's.
const PROFILES = ["saudi", "belote_classic", "belote_declarations"];
// The dice game's profiles (docs/balut.md): a table listed with one of them is a Balut table.
const BALUT_PROFILES = ["stc", "ibf"];
const today = () => new Date().toISOString().slice(0, 10);

function tablesList(tables) {
  if (!tables.length) return h("p", {}, t("none"));
  return h("ul", {class: "tables"}, tables.map(tb =>
    h("li", {}, h("a", {href: `/watch/table.html?id=${tb.table_id}`, "data-table": tb.table_id},
                  `${t("table")} ${tb.table_id}`), tb.championship_id ? ` · ${tb.match_id}` : "",
    BALUT_PROFILES.includes(tb.profile) ? h("span", {class: "game", "data-game": "balut"},
      ` · ${t("balut_game")} (${tb.profile.toUpperCase()})`) : null)));
}

function render() {
  if (!data) return;
  const [champs, live, finished] = data;
  fill(main, 
    h("h1", {}, t("championships")),
    champs.length ? h("table", {class: "list", id: "championships"},
      h("thead", {}, h("tr", {}, ["name", "format", "status", "teams", "rounds", "champion"].map(k => h("th", {}, t(k))))),
      h("tbody", {}, champs.map(c => h("tr", {},
        h("td", {}, h("a", {href: `/watch/championship.html?id=${c.championship_id}`}, c.name)),
        h("td", {}, c.format.replaceAll("_", " ")), h("td", {}, c.status), h("td", {}, String(c.teams)),
        h("td", {}, String(c.rounds)), h("td", {}, c.champion ?? "—")))))
      : h("p", {}, t("none")),
    h("h2", {}, t("daily_deals")),
    h("ul", {id: "daily"}, PROFILES.map(p => h("li", {}, h("a", {href: `/watch/daily.html?day=${today()}&profile=${p}`,
      "data-profile": p}, p.replaceAll("_", " "))))),
    h("h2", {}, t("live_tables")), tablesList(live),
    h("h2", {}, t("finished_tables")), tablesList(finished));
}

setUp();
onChange(render);
Promise.all([get("/championships"), get("/tables?status=live&limit=50"), get("/tables?status=finished&limit=50")])
  .then(d => { data = d; render(); })
  .catch(error => fill(main, h("p", {class: "error"}, `${t("error")}: ${error.message}`)));
