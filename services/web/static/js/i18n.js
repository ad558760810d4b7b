// English and Arabic; Arabic is laid out right to left, with the game's own words (as in the rules).
const WORDS = {
  en: {
    title: "Baloot arena — watch", home: "Championships and tables", language: "العربية",
    championships: "Championships", live_tables: "Live tables", finished_tables: "Finished tables",
    none: "None yet.", name: "Name", format: "Format", status: "Status", teams: "Teams", rounds: "Rounds",
    champion: "Champion", table: "Table", open: "Open", watch: "Watch",
    bracket: "Bracket", standings: "Standings", round: "Round", section: "Section", matches: "Matches",
    search_team: "Find a team", find: "Find", path_of: "Path of", no_team: "No team with that name.",
    match: "Match", stage: "Stage", team_a: "Team A", team_b: "Team B", winner: "Winner", result: "Result",
    bye: "bye", tables: "Tables", rank: "Rank", team: "Team", points: "Points", wins: "Wins", losses: "Losses",
    byes: "Byes", buchholz: "Buchholz", gp_diff: "Game-point difference",
    seat: "Seat", team_us: "Team 1", team_them: "Team 2", dealer: "dealer", to_play: "to play",
    contract: "Contract", hokum: "Hokum (حكم)", sun: "Sun (صن)", ashkal: "Ashkal (أشكل)", buyer: "buyer",
    closed: "closed", gahwa: "Gahwa", bidding: "Bidding", trick: "Trick", tricks: "Tricks",
    tricks_won: "Tricks taken", card_points: "Card points", score: "Game score", target: "target",
    projects: "Projects", baloot: "Baloot (بلوت)", sawa: "Sawa (سوا)", qayd: "Qayd (قيد)",
    deal: "Deal", hand_hidden: "hidden", faceup: "Face-up card",
    live: "Live", reconnecting: "Reconnecting…", ended: "Game over", replay: "Replay",
    previous: "Previous", next: "Next", play: "Play", pause: "Pause", go_trick: "Go to trick", go: "Go",
    position: "Position", of: "of", share: "Link to this position", audit: "Audit of this deal",
    back_to_live: "Live view", deals: "Deals", game_points: "Game points", phase: "Phase",
    chain: "Hash chain", chain_ok: "intact", chain_broken: "broken at event", seed: "Seed",
    receipt: "Signed receipt", checkpoint: "Signed checkpoint",
    anchor_matches: "matches the stored log", anchor_missing: "none yet",
    anchor_bad_signature: "its signature does NOT verify", anchor_rewritten: "the log was rewritten after it was signed",
    anchor_included: "included: its proof verifies", anchor_not_covered: "none covers it yet",
    anchor_building: "proofs being built, ask again in a minute",
    seed_ok: "matches the commitment and the dealt hands", seed_not_commitment: "does NOT match the commitment",
    seed_not_deck: "does NOT give the dealt deck", seed_not_revealed: "not revealed yet",
    seed_explicit: "no commitment (explicit deck)",
    violations: "Violations", no_violations: "No violation.", verdicts: "Qayd (قيد) verdicts",
    proven: "proven", not_proven: "not proven", rule: "Rule", index: "Action", download: "Download the hand record (baloot-hand/1)",
    actions: "Actions", valid: "Valid", kaboot: "Kaboot", failed: "Buyer fails", notes: "Notes",
    pass: "Pass", wala: "Wala", before_you: "Before you", confirm: "Confirm", kawesh: "Kawesh",
    double: "Double", three: "Three", four: "Four", error: "Error",
    suit_S: "spades", suit_H: "hearts", suit_D: "diamonds", suit_C: "clubs",
    rank_7: "seven", rank_8: "eight", rank_9: "nine", rank_T: "ten", rank_J: "jack", rank_Q: "queen",
    rank_K: "king", rank_A: "ace", card_of: "{rank} of {suit}",
    daily: "Daily deal", daily_deals: "Daily deal (today)", leaderboard: "Leaderboard", scoring_mp: "Matchpoints",
    scoring_imps: "IMPs", player: "Player", boards: "Boards", board: "Board", margin: "Margin (game points)",
    how_many: "How many", replays_of_page: "Replays of this board by the players on this page of the leaderboard:",
    set_open: "open until", set_closed: "closed — every board is public",
    daily_hidden: "Hidden until {time}, when the day's set closes: {what}. Whoever has played all {boards} boards of the day sees them now.",
    hidden_leaderboard: "the live leaderboard", hidden_boards: "the results of its {n} boards",
    commitment: "Commitment",
    balut_game: "Balut (dice)", die: "die", dice: "Dice", to_throw: "Throwing", next_to_throw: "Next to throw",
    throws_left: "Throws left", go_round: "Go to round", category: "Row", total: "Total", final_points: "Final points", place: "Place",
    row_fours: "Fours", row_fives: "Fives", row_sixes: "Sixes", row_straight: "Straight", row_house: "Full house",
    row_choice: "Choice", row_balut: "Balut",
    level_normal: "normal", level_hard: "hard", level_expert: "expert", level_simple: "simple", level_strong: "strong",
    bot_of_level: "Bot ({level})", sign_out: "Sign out",
    profile_saudi: "Saudi", profile_belote_classic: "French Belote (classic)",
    profile_belote_declarations: "French Belote (declarations)", profile_stc: "Balut (STC)", profile_ibf: "Balut (IBF)",
  },
  ar: {
    title: "ساحة البلوت — مشاهدة", home: "البطولات والطاولات", language: "English",
    championships: "البطولات", live_tables: "طاولات مباشرة", finished_tables: "طاولات منتهية",
    none: "لا شيء بعد.", name: "الاسم", format: "النظام", status: "الحالة", teams: "الفرق", rounds: "الجولات",
    champion: "البطل", table: "الطاولة", open: "افتح", watch: "شاهد",
    bracket: "شجرة البطولة", standings: "الترتيب", round: "الجولة", section: "القسم", matches: "المباريات",
    search_team: "ابحث عن فريق", find: "ابحث", path_of: "مسار", no_team: "لا يوجد فريق بهذا الاسم.",
    match: "المباراة", stage: "المرحلة", team_a: "الفريق أ", team_b: "الفريق ب", winner: "الفائز",
    result: "النتيجة", bye: "تأهل مباشر", tables: "الطاولات", rank: "المركز", team: "الفريق", points: "النقاط",
    wins: "فوز", losses: "خسارة", byes: "تأهل مباشر", buchholz: "بوخهولز", gp_diff: "فارق النقاط",
    seat: "المقعد", team_us: "الفريق 1", team_them: "الفريق 2", dealer: "الموزع", to_play: "دوره",
    contract: "المشترى", hokum: "حكم", sun: "صن", ashkal: "أشكل", buyer: "المشتري", closed: "مقفول",
    gahwa: "قهوة", bidding: "الشراء", trick: "الأكلة", tricks: "الأكلات", tricks_won: "الأكلات المأخوذة",
    card_points: "الأبناط", score: "النشرة", target: "الهدف", projects: "المشاريع", baloot: "بلوت",
    sawa: "سوا", qayd: "قيد", deal: "التوزيعة", hand_hidden: "مخفية", faceup: "الورقة المكشوفة",
    live: "مباشر", reconnecting: "إعادة الاتصال…", ended: "انتهت الصكة", replay: "إعادة",
    previous: "السابق", next: "التالي", play: "تشغيل", pause: "إيقاف", go_trick: "انتقل إلى الأكلة", go: "انتقل",
    position: "الموضع", of: "من", share: "رابط هذا الموضع", audit: "تدقيق هذه التوزيعة",
    back_to_live: "المشاهدة المباشرة", deals: "التوزيعات", game_points: "النقاط", phase: "المرحلة",
    chain: "سلسلة التجزئة", chain_ok: "سليمة", chain_broken: "مكسورة عند الحدث", seed: "البذرة",
    receipt: "الإيصال الموقّع", checkpoint: "نقطة التثبيت الموقّعة",
    anchor_matches: "يطابق السجل المخزّن", anchor_missing: "لا يوجد بعد",
    anchor_bad_signature: "توقيعه غير صحيح", anchor_rewritten: "أُعيدت كتابة السجل بعد توقيعه",
    anchor_included: "مشمول: إثباته صحيح", anchor_not_covered: "لم تشمله نقطة بعد",
    anchor_building: "الإثباتات قيد البناء، أعد المحاولة بعد دقيقة",
    seed_ok: "تطابق الالتزام والأوراق الموزعة", seed_not_commitment: "لا تطابق الالتزام",
    seed_not_deck: "لا تعطي الأوراق الموزعة", seed_not_revealed: "لم تُكشف بعد",
    seed_explicit: "بلا التزام (أوراق محددة)",
    violations: "المخالفات", no_violations: "لا مخالفات.", verdicts: "أحكام القيد", proven: "ثابت",
    not_proven: "غير ثابت", rule: "القاعدة", index: "الحركة", download: "نزّل سجل اليد (baloot-hand/1)",
    actions: "الحركات", valid: "سليمة", kaboot: "كبوت", failed: "المشتري خسران", notes: "ملاحظات",
    pass: "بس", wala: "ولا", before_you: "قبلك", confirm: "تأكيد", kawesh: "كوش",
    double: "دبل", three: "ثري", four: "فور", error: "خطأ",
    suit_S: "سبيت", suit_H: "هاص", suit_D: "ديمن", suit_C: "شريا",
    rank_7: "سبعة", rank_8: "ثمانية", rank_9: "تسعة", rank_T: "عشرة", rank_J: "ولد", rank_Q: "بنت",
    rank_K: "شايب", rank_A: "إكة", card_of: "{rank} {suit}",
    daily: "اليومي", daily_deals: "اليومي (اليوم)", leaderboard: "لوحة الترتيب", scoring_mp: "نقاط المقارنة",
    scoring_imps: "IMPs", player: "اللاعب", boards: "التوزيعات", board: "التوزيعة", margin: "الفارق (نقاط)",
    how_many: "العدد", replays_of_page: "إعادات هذه التوزيعة للاعبين في هذه الصفحة من لوحة الترتيب:",
    set_open: "مفتوح حتى", set_closed: "مغلق — كل التوزيعات معلنة",
    daily_hidden: "مخفية حتى {time}، موعد إغلاق مجموعة اليوم: {what}. من لعب توزيعات اليوم كلها ({boards}) يراها الآن.",
    hidden_leaderboard: "لوحة الترتيب المباشرة", hidden_boards: "نتائج توزيعاتها ({n})",
    commitment: "الالتزام",
    balut_game: "بالوت (النرد)", die: "حجر نرد", dice: "النرد", to_throw: "يرمي الآن", next_to_throw: "يرمي بعده",
    throws_left: "الرميات الباقية", go_round: "اذهب إلى الجولة", category: "الخانة", total: "المجموع", final_points: "النقاط النهائية", place: "الترتيب",
    row_fours: "الأربعات", row_fives: "الخمسات", row_sixes: "الستات", row_straight: "المتتالية", row_house: "الفل هاوس",
    row_choice: "الاختيار", row_balut: "بالوت",
    level_normal: "عادي", level_hard: "صعب", level_expert: "خبير", level_simple: "بسيط", level_strong: "قوي",
    bot_of_level: "آلي ({level})", sign_out: "خروج",
    profile_saudi: "سعودي", profile_belote_classic: "بلوت فرنسي (كلاسيكي)",
    profile_belote_declarations: "بلوت فرنسي (بالمشاريع)", profile_stc: "بالوت (STC)", profile_ibf: "بالوت (IBF)",
  },
};

// The locale numbers and dates are written in: Western digits in Arabic too, as the scores, tables and
// rounds are written everywhere on the pages (one kind of digit on a page, not two).
export function locale() {
  return lang() === "ar" ? "ar-u-nu-latn" : "en";
}

// Names joined as the reader's language joins them ("A, B and C"; "أ، ب و ج").
export function listText(items) {
  return new Intl.ListFormat(locale(), {style: "long", type: "conjunction"}).format(items);
}

// More words, for the pages that bring their own (the play pages: words_play.js).
export function addWords(more) {
  for (const l of Object.keys(more)) Object.assign(WORDS[l], more[l]);
}

const KEY = "baloot.watch.lang";
const listeners = [];

// The language a link asks for (?lang=ar) is remembered when the page opens: the next page, reached by any
// link, speaks it too.
const ASKED = new URLSearchParams(location.search).get("lang");
if (WORDS[ASKED] && localStorage.getItem(KEY) !== ASKED) localStorage.setItem(KEY, ASKED);

export function lang() {
  const asked = new URLSearchParams(location.search).get("lang");
  return WORDS[asked] ? asked : WORDS[localStorage.getItem(KEY)] ? localStorage.getItem(KEY) : "en";
}

// Keys a page asked for that no language has (the tests read it: a page never shows a bare key).
export const missingWords = globalThis.missingWords = new Set();

export function t(key, values = {}) {
  const text = WORDS[lang()][key] ?? WORDS.en[key];
  if (text === undefined) { missingWords.add(key); return key; }
  return text.replace(/\{(\w+)\}/g, (_, k) => values[k] ?? "");
}

// A word if a language has it, else ``fallback`` (a name from a link, which may be no word of ours).
export function tOr(key, fallback) {
  return key in WORDS.en ? t(key) : fallback;
}

// Static words of the page (data-i18n) and its direction; pages re-render their own content on change.
export function apply() {
  const l = lang();
  document.documentElement.lang = l;
  document.documentElement.dir = l === "ar" ? "rtl" : "ltr";
  document.title = t("title");
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of document.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
}

export function onChange(render) { listeners.push(render); }

export function setUp() {
  apply();
  const toggle = document.getElementById("lang");
  toggle?.addEventListener("click", () => {
    localStorage.setItem(KEY, lang() === "ar" ? "en" : "ar");
    const url = new URL(location.href);
    url.searchParams.delete("lang");
    history.replaceState(null, "", url);
    apply();
    listeners.forEach(render => render());
  });
}
