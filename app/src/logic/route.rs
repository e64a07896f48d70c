//! The dashboard's routes and which link is current, as plain functions of
//! the path (the browser side is `ui::router`).

/// The routed pages. `/chat` and `/chat/:id` are distinct routes: moving
/// between them rebuilds the page, moving between chats does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    Root,
    Chat,
    ChatSession,
    Voice,
    Memories,
    Model,
    NotFound,
}

impl Route {
    pub fn of(path: &str) -> Self {
        let path = path
            .strip_suffix('/')
            .filter(|p| !p.is_empty())
            .unwrap_or(path);
        match path {
            "/" => Route::Root,
            "/chat" => Route::Chat,
            "/voice" => Route::Voice,
            "/memories" => Route::Memories,
            "/model" => Route::Model,
            _ => match chat_id(path) {
                Some(_) => Route::ChatSession,
                None => Route::NotFound,
            },
        }
    }
}

/// The `:id` of `/chat/:id` (still percent-encoded).
pub fn chat_id(path: &str) -> Option<&str> {
    let path = path.strip_suffix('/').unwrap_or(path);
    let id = path.strip_prefix("/chat/")?;
    (!id.is_empty() && !id.contains('/')).then_some(id)
}

/// Whether a link to `href` is for the page at `path`: the same path or
/// one below it (`/chat` for `/chat/abc`).
pub fn is_active(href: &str, path: &str) -> bool {
    let path = path.strip_suffix('/').unwrap_or(path);
    let href = href.strip_suffix('/').unwrap_or(href);
    path == href || (path.starts_with(href) && path[href.len()..].starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_match_their_paths() {
        assert_eq!(Route::of("/"), Route::Root);
        assert_eq!(Route::of("/chat"), Route::Chat);
        assert_eq!(Route::of("/chat/"), Route::Chat);
        assert_eq!(Route::of("/chat/abc"), Route::ChatSession);
        assert_eq!(Route::of("/voice"), Route::Voice);
        assert_eq!(Route::of("/memories"), Route::Memories);
        assert_eq!(Route::of("/model"), Route::Model);
        assert_eq!(Route::of("/chat/abc/def"), Route::NotFound);
        assert_eq!(Route::of("/nothing"), Route::NotFound);
    }

    #[test]
    fn chat_ids_come_from_the_path() {
        assert_eq!(chat_id("/chat/abc"), Some("abc"));
        assert_eq!(chat_id("/chat/abc/"), Some("abc"));
        assert_eq!(chat_id("/chat/"), None);
        assert_eq!(chat_id("/chat"), None);
        assert_eq!(chat_id("/chat/a/b"), None);
    }

    #[test]
    fn links_are_active_for_their_page_and_below() {
        assert!(is_active("/chat", "/chat"));
        assert!(is_active("/chat", "/chat/abc"));
        assert!(is_active("/chat", "/chat/"));
        assert!(!is_active("/chat", "/chatter"));
        assert!(!is_active("/chat", "/voice"));
        assert!(!is_active("/voice", "/chat"));
    }
}
