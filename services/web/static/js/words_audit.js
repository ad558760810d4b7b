// The words of the audit page (/watch/audit.html): its score breakdown, the receipt checked in the browser and
// an uploaded record's audit; English and Arabic.
import {addWords} from "./i18n.js";

addWords({
  en: {
    audit_title: "Audit a hand record", audit_team_of: "{names}", audit_team_of_two: "{a} and {b}", audit_team_a: "Team A", audit_team_b: "Team B",
    audit_score: "The score", audit_card_gp: "Card points as game points", audit_projects: "Projects",
    audit_yourself: "Check it yourself", audit_receipt_here: "The receipt's signature, checked in this browser",
    audit_key: "key", audit_signature_ok: "verifies against the server's published key",
    audit_signature_bad: "does NOT verify against the server's published key", audit_no_receipt: "no receipt in the record",
    audit_no_webcrypto: "this browser cannot check Ed25519: run the commands below", audit_checking: "checking…",
    audit_commands: "On your own machine, with the record downloaded below and a copy of the log (or against the server's database):",
    audit_upload: "Audit a record file", audit_upload_hint: "Any baloot-hand/1 or balut-game/1 file: the server replays it by the rules, as baloot audit does, and stores nothing.",
    audit_record_valid: "Valid: every action follows the rules.",
    audit_record_invalid: "Not valid: the first bad action is {index} ({rule}).",
  },
  ar: {
    audit_title: "دقّق سجل يد", audit_team_of: "{names}", audit_team_of_two: "{a} و{b}", audit_team_a: "الفريق أ", audit_team_b: "الفريق ب",
    audit_score: "الحساب", audit_card_gp: "نقاط الأوراق بالنقاط", audit_projects: "المشاريع",
    audit_yourself: "تحقق بنفسك", audit_receipt_here: "توقيع الإيصال، متحقق منه في هذا المتصفح",
    audit_key: "المفتاح", audit_signature_ok: "صحيح بمفتاح الخادم المنشور",
    audit_signature_bad: "غير صحيح بمفتاح الخادم المنشور", audit_no_receipt: "لا إيصال في السجل",
    audit_no_webcrypto: "لا يستطيع هذا المتصفح التحقق من Ed25519: شغّل الأوامر أدناه", audit_checking: "جارٍ التحقق…",
    audit_commands: "على جهازك، بالسجل الذي تنزّله أدناه ونسخة من السجل الكامل (أو على قاعدة بيانات الخادم):",
    audit_upload: "دقّق ملف سجل", audit_upload_hint: "أي ملف baloot-hand/1 أو balut-game/1: يعيد الخادم لعبه بالقواعد كما يفعل baloot audit، ولا يخزن شيئاً.",
    audit_record_valid: "سليم: كل حركة تتبع القواعد.",
    audit_record_invalid: "غير سليم: أول حركة مخالفة هي {index} ({rule}).",
    line_bids: "{seat}: {bid}{suit}", line_says: "{seat}: {call}{how}", line_open: "مفتوح",
    line_declares: "{seat} يعلن {cards}", line_plays: "{seat} يلعب {card}", line_baloot: "معلناً بلوت",
    line_illegal: "مخالفة", line_sawa_holds: "{seat} يطلب سوا: صحيح", line_sawa_false: "{seat} يطلب سوا: غير صحيح",
    line_qayd: "{seat} يطلب القيد على الحركة {index}",
    line_trick: "الأكلة {n} لـ {seat}، {points} بنط", line_last_trick: "مع الأرض ({n})",
    line_contract: "المشترى: {name}، اشتراه {seat}", line_doubled: "مدبل ×{x}",
    line_card_gp: "نقاط الأوراق {a}/{b} + المشاريع {pa}/{pb} = {ga}/{gb}",
    line_buyer_fails: "فريق المشتري أقل نقاطاً: خسران", line_baloot_points: "بلوت {a}/{b}، لا تُضاعف",
    line_void: "التوزيعة ملغاة ({reason})",
  },
});
