// A game's rating leaderboard (/watch/ratings.html?game=baloot): rank, player, rating (mu - 3 sigma) and its
// parts, a page at a time by keyset (the server's next_after_*).
import {get} from "./api.js";
import {decimal, fill, h} from "./cards.js";
import {onChange, setUp, t, tOr} from "./i18n.js";
import {who} from "./bidi.js";
import "./words_watch.js";

const main = document.getElementById("main");
const params = new URLSearchParams(location.search);
const game = params.get("game") || "baloot";
const PAGE = Math.min(200, Math.max(1, Number(params.get("limit")) || 50));
let page = null, failure = null;
const previous = [];               // the keys of the pages before this one
let after = null;                  // [ordinal, user] after which this page starts


function render() {
  const title = `${t("ratings")} — ${tOr(`game_${game}`, game)}`;
  if (failure) { fill(main, h("h1", {}, title), h("p", {class: "error"}, `${t("error")}: ${failure.message}`)); return; }
  if (!page) return;
  fill(main,
    h("h1", {}, title),
    h("p", {class: "muted"}, t("ratings_how")),
    page.rows.length ? h("table", {class: "list", id: "ratings"},
      h("thead", {}, h("tr", {}, ["rank", "player", "rating", "rating_parts", "games"].map(k =>
        h("th", {class: k === "rating_parts" ? "wide-only" : null}, t(k))))),
      h("tbody", {}, page.rows.map(r => h("tr", {"data-user": r.user_id},
        h("td", {}, String(r.rank)),
        h("td", {}, h("a", {href: `/watch/player.html?id=${encodeURIComponent(r.user_id)}`}, who(r.name))),
        h("td", {"data-ordinal": r.ordinal}, decimal(r.ordinal)),
        h("td", {class: "muted wide-only"}, decimal(r.mu), " ± ", decimal(r.sigma)),
        h("td", {}, String(r.games)))))) : h("p", {id: "ratings"}, t("no_ratings")),
    h("div", {class: "controls"},
      h("button", {type: "button", id: "prev-page", disabled: !previous.length,
                   onclick: () => { after = previous.pop(); load(); }}, t("previous")),
      h("button", {type: "button", id: "next-page", disabled: page.next_after_ordinal === null,
                   onclick: () => { previous.push(after); after = [page.next_after_ordinal, page.next_after_user]; load(); }},
        t("next"))));
}

async function load() {
  const query = new URLSearchParams({limit: PAGE, ...(after ? {after_ordinal: after[0], after_user: after[1]} : {})});
  try {
    page = await get(`/ratings/${encodeURIComponent(game)}?${query}`);
  } catch (error) { failure = error; }
  render();
  main.dataset.loaded = "true";
}

setUp();
onChange(render);
load();
