//! Markdown to HTML for assistant messages: the `html` of history's
//! assistant messages and of the `assistant_message` event. Rendered here so
//! the browser's Wasm carries no Markdown parser. Raw HTML from the model
//! never reaches the page: it is shown as text, links keep only safe
//! schemes, and images become text.

use pulldown_cmark::{html, CowStr, Event, Options, Parser, Tag};

pub fn to_html(markdown: &str) -> String {
    let options =
        Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS;
    let events = Parser::new_ext(markdown, options).map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: safe_url(dest_url),
            title,
            id,
        }),
        Event::Start(Tag::Image {
            dest_url, title, ..
        }) => {
            // No images from the model: a remote image is a tracking beacon.
            Event::Text(CowStr::from(format!("[image: {title} {dest_url}]")))
        }
        Event::End(pulldown_cmark::TagEnd::Image) => Event::Text(CowStr::from("")),
        other => other,
    });
    let mut out = String::new();
    html::push_html(&mut out, events);
    out
}

fn safe_url(url: CowStr<'_>) -> CowStr<'_> {
    let lower = url.trim().to_ascii_lowercase();
    let allowed = ["http://", "https://", "mailto:", "/", "#"]
        .iter()
        .any(|prefix| lower.starts_with(prefix));
    if allowed {
        url
    } else {
        CowStr::from("#")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_common_markdown() {
        let html = to_html("**bold** and `code`\n\n- one\n- two");
        assert!(html.contains("<strong>bold</strong>"));
        assert!(html.contains("<code>code</code>"));
        assert!(html.contains("<li>one</li>"));
    }

    #[test]
    fn raw_html_is_shown_as_text() {
        let html = to_html("<script>alert(1)</script> and <b onclick=x>hi</b>");
        assert!(!html.contains("<script>"), "{html}");
        assert!(!html.contains("<b onclick"), "{html}");
        assert!(html.contains("&lt;script&gt;"));
    }

    #[test]
    fn only_safe_links_survive() {
        assert!(to_html("[x](https://example.org)").contains("href=\"https://example.org\""));
        let html = to_html("[x](javascript:alert(1))");
        assert!(!html.contains("javascript"), "{html}");
        let html = to_html("![pixel](https://tracker.example/p.gif)");
        assert!(!html.contains("<img"), "{html}");
    }
}
