//! The kinds of issue a person may open, each with the words its body starts with: what to say
//! so that whoever picks it up can act without asking back.

use catalog_schemas::Name;
use serde::Serialize;

use crate::discussion::issues::record::ReportKind;

/// One kind of issue and the body a new one of that kind starts with.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = IssueTemplate))]
pub struct IssueTemplate {
    #[serde(rename = "type")]
    pub kind: ReportKind,
    pub title: Name,
    /// Opened private whatever the person asks (rights, offensive content).
    pub private: bool,
    /// The body's first words, in English and Hebrew.
    pub body: Name,
}

/// Every kind, in the order of [`ReportKind::ALL`].
pub fn templates() -> Vec<IssueTemplate> {
    ReportKind::ALL
        .into_iter()
        .map(|kind| {
            let (en, he) = starts(kind);
            IssueTemplate {
                kind,
                title: kind.title(),
                private: kind.always_private(),
                body: Name {
                    he: he.to_string(),
                    en: Some(en.to_string()),
                },
            }
        })
        .collect()
}

fn starts(kind: ReportKind) -> (&'static str, &'static str) {
    match kind {
        ReportKind::WrongFact => (
            "Which field is wrong:\nWhat it should say:\nWhere that is written (a source, a page):\n",
            "איזה פרט שגוי:\nמה צריך להיות כתוב:\nהמקור (ספר, עמוד):\n",
        ),
        ReportKind::MissingPage => (
            "Which pages are missing (printed page numbers):\nWhere a full copy is:\n",
            "אילו עמודים חסרים (מספרי העמודים בדפוס):\nהיכן יש עותק שלם:\n",
        ),
        ReportKind::BadScan => (
            "Which pages:\nWhat is wrong (blurred, cut, skewed, out of order):\n",
            "אילו עמודים:\nמה הבעיה (מטושטש, חתוך, עקום, לא לפי הסדר):\n",
        ),
        ReportKind::AudioProblem => (
            "Where in the recording (minutes:seconds):\nWhat is wrong (silence, noise, cut, wrong recording):\n",
            "היכן בהקלטה (דקות:שניות):\nמה הבעיה (שקט, רעש, קטוע, הקלטה אחרת):\n",
        ),
        ReportKind::WrongText => (
            "Which words (a page and line, or a paragraph):\nWhat they should be:\nThe printing you compared with:\n",
            "אילו מילים (עמוד ושורה, או פסקה):\nמה צריך להיות:\nהדפוס שהשווית אליו:\n",
        ),
        ReportKind::Duplicate => (
            "The other item (its id or address):\nWhy they are the same:\n",
            "הפריט הכפול (המזהה או הכתובת):\nמדוע הם אחד:\n",
        ),
        ReportKind::Rights => (
            "Who holds the rights:\nWhat should change (stop serving, credit, link):\nHow to reach you:\n",
            "מי בעל הזכויות:\nמה צריך להשתנות (הפסקת הגשה, קרדיט, קישור):\nדרך ליצור קשר:\n",
        ),
        ReportKind::Offensive => (
            "What is offensive, and where exactly:\n",
            "מה פוגע, והיכן בדיוק:\n",
        ),
        ReportKind::Other => (
            "What happened:\nWhat you expected:\n",
            "מה קרה:\nמה ציפית:\n",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_a_template_in_both_languages() {
        let all = templates();
        assert_eq!(all.len(), ReportKind::ALL.len());
        for t in all {
            assert!(!t.body.he.is_empty());
            assert!(t.body.en.as_deref().is_some_and(|b| !b.is_empty()));
            assert_eq!(t.private, t.kind.always_private());
        }
    }
}
