// People's and teams' names inside a sentence of the other direction keep their own order ("2 Buraidah-Dates
// bot" inside Arabic): each is isolated, its direction taken from its own first letter. In HTML a <bdi>; where
// no element may go (SVG text, an option, a tooltip, a screen reader's label) the isolate characters.
import {h} from "./cards.js";
import {t} from "./i18n.js";

export const who = name => h("bdi", {}, name);
export const isolated = text => `\u2068${text}\u2069`;

// A sentence of ours with names (or other nodes) in its places: the words from t(), each value isolated.
export function say(key, values = {}) {
  const marks = Object.fromEntries(Object.keys(values).map(k => [k, `\u0000${k}\u0000`]));
  return t(key, marks).split("\u0000").map((part, i) => i % 2 ? node(values[part]) : part).filter(p => p !== "");
}

const node = v => v instanceof Node || Array.isArray(v) ? v : who(String(v));

// Items joined by a separator, each isolated (a list of names).
export const joined = (items, separator) => items.flatMap((x, i) => i ? [separator, node(x)] : [node(x)]);
