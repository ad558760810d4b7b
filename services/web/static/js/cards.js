// Card faces: the rank and suit symbol, with a label a screen reader says ("ten of spades", "عشرة سبيت").
import {t} from "./i18n.js";

const SYMBOL = {S: "♠", H: "♥", D: "♦", C: "♣"};
const RANK = {T: "10"};

export function cardLabel(card) {
  return t("card_of", {rank: t(`rank_${card[0]}`), suit: t(`suit_${card[1]}`)});
}

export function suitName(suit) { return `${SYMBOL[suit]} ${t(`suit_${suit}`)}`; }

export function cardEl(card) {
  const el = document.createElement("span");
  el.className = `card suit-${card[1]}`;
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", cardLabel(card));
  el.dataset.card = card;
  el.textContent = `${RANK[card[0]] ?? card[0]}${SYMBOL[card[1]]}`;
  return el;
}

export function backEl() {
  const el = document.createElement("span");
  el.className = "card back";
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", t("hand_hidden"));
  return el;
}

// A number to one decimal, read left to right in Arabic too (its minus sign before it, not after).
export function decimal(x) {
  return h("bdi", {dir: "ltr"}, x.toFixed(1));
}

// A small element builder: h("td", {class: "x"}, child, "text", ...).
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  el.append(...present(children));
  return el;
}

// Put these children in place of an element's (null, undefined, false and nested lists as h() takes them).
export function fill(el, ...children) {
  el.replaceChildren(...present(children));
}

const present = children => children.flat(Infinity).filter(c => c !== null && c !== undefined && c !== false);
