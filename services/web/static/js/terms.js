// A table's terms as an invitee reads them before he accepts, and as every seat sees them at the table: the
// game and its rules, what spectators see of the hands and how late, the turn clock and what happens when it
// runs out, and who referees it (a private table's proposer who does not sit: he sees every hand).
import {h} from "./cards.js";
import {locale, t} from "./i18n.js";

export function whenText(iso) {
  if (!iso) return "—";
  return new Intl.DateTimeFormat(locale(), {dateStyle: "medium", timeStyle: "short"}).format(new Date(iso));
}

function minutes(seconds) {
  return seconds >= 60 ? t("minutes", {n: Math.round(seconds / 60)}) : t("seconds", {n: Math.round(seconds)});
}

function switchText(name, value) {
  const shown = value === true ? t("yes") : value === false ? t("no") : value === null ? "—" : String(value);
  return `${t(`switch_${name}`)}: ${shown}`;
}

// ``seatName``: how the page says a seat (at the table: "Your partner (bot)"); by default its number from 1.
export function termsEl(terms, nameOf = () => undefined, seatName = seat => `${t("seat")} ${seat + 1}`) {
  const bots = terms.bots.map((level, seat) => level ? `${seatName(seat)}: ${t(`level_${level}`)}` : null)
    .filter(Boolean);
  const switches = Object.entries(terms.switches);
  const clock = terms.turn_seconds
    ? `${t("seconds", {n: terms.turn_seconds})} · ${t(`timeout_${terms.on_timeout}`)}`
      + (terms.on_timeout === "bot" ? ` (${t(`level_${terms.timeout_bot_level}`)})` : "")
      + (terms.on_timeout !== "forfeit" ? ` · ${t("abandoned_after", {n: terms.max_timeouts})}` : "")
    : t("no_clock");
  const hands = t(`hands_${terms.hands_policy}`) + (terms.delay_seconds ? ` · ${t("delay", {time: minutes(terms.delay_seconds)})}` : "");
  return h("dl", {class: "facts terms"},
    h("dt", {}, t("game")), h("dd", {"data-term": "game"},
      `${t(terms.game === "balut" ? "balut_game" : "card_game")} · ${t(`profile_${terms.profile}`)}`
      + (terms.deals ? ` · ${t("deals_count", {n: terms.deals})}` : "")),
    switches.length ? [h("dt", {}, t("switches")), h("dd", {"data-term": "switches"},
      switches.map(([k, v]) => switchText(k, v)).join(" · "))] : null,
    terms.game !== "balut" ? [h("dt", {}, t("table_mode")), h("dd", {"data-term": "mode"}, t(`mode_${terms.mode}`))] : null,
    terms.game !== "balut" ? [h("dt", {}, t("spectators_see")), h("dd", {"data-term": "hands"}, hands)] : null,
    terms.referee ? [h("dt", {}, t("referee")), h("dd", {"data-term": "referee"},
      t("referee_sees_hands", {name: nameOf(terms.referee)?.name ?? "…"}))] : null,
    h("dt", {}, t("turn_clock")), h("dd", {"data-term": "clock"}, clock),
    bots.length ? [h("dt", {}, t("bots")), h("dd", {"data-term": "bots"}, bots.join(" · ")
      + (terms.bot_pace_seconds ? ` · ${t("bot_pace", {n: terms.bot_pace_seconds})}` : ""))] : null);
}
