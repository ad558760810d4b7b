// The words of a championship's page (/watch/championship.html): formats, statuses, stages and how a match
// was decided; English and Arabic.
import {addWords} from "./i18n.js";

addWords({
  en: {
    format_single_elimination: "knock-out", format_groups_knockout: "groups, then knock-out",
    format_double_elimination: "double elimination", format_swiss: "Swiss", format_round_robin: "round robin",
    format_duplicate: "duplicate",
    status_new: "new", status_registration: "registration open", status_closed: "registration closed",
    status_drawn: "drawn", status_running: "under way", status_finished: "finished",
    stage_main: "main draw", stage_winners: "winners' bracket", stage_losers: "losers' bracket",
    "stage_grand final": "grand final", "stage_grand final reset": "grand final, reset", stage_swiss: "Swiss",
    "stage_round robin": "round robin", stage_duplicate: "duplicate", stage_group: "group {n}",
    decided_forfeit: "forfeit", decided_double_forfeit: "double forfeit", decided_bye: "bye",
    decided_walkover: "walkover", decided_void: "empty",
    project_sira: "Sira (سرا)", project_fifty: "Fifty (خمسين)", project_hundred: "Hundred (مية)",
    project_four_hundred: "Four hundred (أربعمية)", project_tierce: "Tierce", project_four_of_a_kind: "Four of a kind",
    team_of_players: "{a} and {b}", versus: "v", championship_page: "its championship", match: "match",
    nobody_won: "nobody won", won_by: "won by {team}", table_not_found: "No such table",
    table_not_found_hint: "The link may be mistyped, or the table was never opened. The championships and live tables are listed on the start page.",
  },
  ar: {
    format_single_elimination: "خروج المغلوب", format_groups_knockout: "مجموعات ثم خروج المغلوب",
    format_double_elimination: "خروج بخسارتين", format_swiss: "سويسري", format_round_robin: "دوري",
    format_duplicate: "مكرر",
    status_new: "جديدة", status_registration: "التسجيل مفتوح", status_closed: "التسجيل مغلق",
    status_drawn: "تمت القرعة", status_running: "جارية", status_finished: "انتهت",
    stage_main: "الجدول الرئيسي", stage_winners: "جدول الفائزين", stage_losers: "جدول الخاسرين",
    "stage_grand final": "النهائي الكبير", "stage_grand final reset": "النهائي الكبير، إعادة", stage_swiss: "سويسري",
    "stage_round robin": "دوري", stage_duplicate: "مكرر", stage_group: "المجموعة {n}",
    decided_forfeit: "انسحاب", decided_double_forfeit: "انسحاب الفريقين", decided_bye: "تأهل مباشر",
    decided_walkover: "فوز بلا لعب", decided_void: "فارغة",
    project_sira: "سرا", project_fifty: "خمسين", project_hundred: "مية", project_four_hundred: "أربعمية",
    project_tierce: "ثلاث متتالية", project_four_of_a_kind: "أربع متشابهة",
    team_of_players: "{a} و{b}", versus: "ضد", championship_page: "بطولتها", match: "المباراة",
    nobody_won: "لم يفز أحد", won_by: "فاز {team}", table_not_found: "لا توجد طاولة بهذا الرابط",
    table_not_found_hint: "ربما كُتب الرابط خطأً، أو لم تُفتح الطاولة قط. البطولات والطاولات المباشرة في الصفحة الأولى.",
  },
});
