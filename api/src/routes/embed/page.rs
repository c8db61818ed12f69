//! The page's HTML. Every value from the catalog goes through [`text`], which escapes the five
//! characters that could end a text or an attribute (quick-xml's escaping, which the OAI answers
//! use too), so a name in the community's data is always shown as text, never read as markup.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::view::View;

/// The page's only style, inline so the page needs nothing else; the page's policy allows
/// exactly this text by its hash.
pub(crate) const STYLE: &str = include_str!("style.css");

fn text(value: &str) -> Cow<'_, str> {
    quick_xml::escape::escape(value)
}

/// The whole page of `view`.
pub(crate) fn render(view: &View) -> String {
    let mut out = String::with_capacity(2048 + STYLE.len());
    let title = match &view.title_en {
        Some(en) => format!("{} · {}", text(&view.title_he), text(en)),
        None => text(&view.title_he).into_owned(),
    };
    // Writing to a String cannot fail.
    let _ = write!(
        out,
        "<!doctype html>\n<html lang=\"he\" dir=\"rtl\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"robots\" content=\"noindex\">\n<title>{title}</title>\n<style>{STYLE}</style>\n\
         </head>\n<body>\n<article>\n\
         <p class=\"kind\">{} · <span lang=\"en\" dir=\"ltr\">{}</span></p>\n<h1>{}</h1>\n",
        text(view.kind_he),
        text(view.kind_en),
        text(&view.title_he),
    );
    if let Some(en) = &view.title_en {
        let _ = writeln!(
            out,
            "<p class=\"en\" lang=\"en\" dir=\"ltr\">{}</p>",
            text(en)
        );
    }
    if !view.lines.is_empty() {
        out.push_str("<dl>\n");
        for line in &view.lines {
            let _ = write!(
                out,
                "<div><dt>{} <span lang=\"en\" dir=\"ltr\">{}</span></dt><dd>",
                text(line.label_he),
                text(line.label_en)
            );
            match &line.href {
                Some(href) => {
                    let _ = write!(out, "<a href=\"{}\">{}</a>", text(href), text(&line.text));
                }
                None => out.push_str(&text(&line.text)),
            }
            if let Some(en) = &line.text_en {
                let _ = write!(
                    out,
                    " <span class=\"en\" lang=\"en\" dir=\"ltr\">{}</span>",
                    text(en)
                );
            }
            out.push_str("</dd></div>\n");
        }
        out.push_str("</dl>\n");
    }
    let id = view.id.to_string();
    let _ = write!(
        out,
        "<footer><a href=\"/v1/entities/{id}\" target=\"_blank\" rel=\"noopener\">קטלוג · \
         <span lang=\"en\" dir=\"ltr\">catalog</span></a> \
         <span class=\"id\" lang=\"en\" dir=\"ltr\">{id}</span></footer>\n</article>\n</body>\n</html>\n"
    );
    out
}

#[cfg(test)]
mod tests {
    use catalog_schemas::Id;

    use super::*;
    use crate::routes::embed::view::Line;

    fn view(title: &str) -> View {
        View {
            id: Id::parse("cat-00000001").unwrap(),
            kind_he: "ספר",
            kind_en: "Work",
            title_he: title.to_owned(),
            title_en: Some("\"><img src=x onerror=alert(1)>".to_owned()),
            lines: vec![Line {
                label_he: "מחבר",
                label_en: "By",
                text: "a & b".to_owned(),
                text_en: None,
                href: Some("/embed/cat-00000002".to_owned()),
            }],
        }
    }

    #[test]
    fn values_are_text_never_markup() {
        let html = render(&view("<script>alert(1)</script>"));
        assert!(
            !html.contains("<script") && !html.contains("<img"),
            "{html}"
        );
        assert!(
            html.contains("<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>"),
            "{html}"
        );
        assert!(html.contains("&quot;&gt;&lt;img"), "{html}");
        assert!(
            html.contains(r#"<a href="/embed/cat-00000002">a &amp; b</a>"#),
            "{html}"
        );
    }

    #[test]
    fn the_page_is_right_to_left_with_its_style_inline() {
        let html = render(&view("לקוטי שיחות"));
        assert!(html.starts_with("<!doctype html>\n<html lang=\"he\" dir=\"rtl\">"));
        assert!(html.contains(&format!("<style>{STYLE}</style>")));
        assert!(html.contains(r#"<a href="/v1/entities/cat-00000001" target="_blank""#));
        assert_eq!(html.matches("<dt>").count(), 1);
    }
}
