//! A chat's history as the page holds it: the pages of stored messages read
//! so far, joined in seq order, and how many older ones are not read yet. A
//! long chat opens with its newest page; older pages are read as the user
//! scrolls up.

use crate::protocol::{Message, Role};

/// The messages read so far, oldest first, with no gap between them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoadedHistory {
    pub messages: Vec<Message>,
    /// How many stored messages come before the first one read.
    pub older: u64,
}

impl LoadedHistory {
    /// The newest page, read again (after a reply, or when another window
    /// changed the chat). Older pages read before are kept when the page
    /// meets them: what was read before it, plus what comes before that,
    /// is exactly what comes before the page. Otherwise (more was written
    /// since than a page holds) the page alone is the history.
    pub fn take_newest(&mut self, page: Vec<Message>, older: u64) {
        let Some(first) = page.first().map(|m| m.seq) else {
            *self = Self {
                messages: page,
                older,
            };
            return;
        };
        let kept = self.messages.iter().take_while(|m| m.seq < first).count();
        if !self.messages.is_empty() && self.older + kept as u64 == older {
            // `older` stays: what comes before the first message read.
            self.messages.truncate(kept);
            self.messages.extend(page);
        } else {
            *self = Self {
                messages: page,
                older,
            };
        }
    }

    /// The page before the first message read. Messages at or after it
    /// (a page answered after the history moved on) are not taken twice.
    pub fn take_older(&mut self, page: Vec<Message>, older: u64) {
        let first = self.first_seq().unwrap_or(i64::MAX);
        let mut joined: Vec<Message> = page.into_iter().filter(|m| m.seq < first).collect();
        if joined.is_empty() {
            return;
        }
        joined.append(&mut self.messages);
        self.messages = joined;
        self.older = older;
    }

    /// The seq to read the next older page before.
    pub fn first_seq(&self) -> Option<i64> {
        self.messages.first().map(|m| m.seq)
    }

    /// What is drawn from history while a reply is followed (its own rows
    /// are drawn from its events): up to its user message. When no user
    /// message is read yet, every row read is the reply's.
    pub fn before_live_reply(&self) -> &[Message] {
        match self.messages.iter().rposition(|m| m.role == Role::User) {
            Some(last_user) => &self.messages[..=last_user],
            None if self.older > 0 => &[],
            None => &self.messages,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(seq: i64, role: Role) -> Message {
        Message {
            seq,
            role,
            content: format!("message {seq}"),
            tool_name: None,
            tool_args: None,
            created_at: String::new(),
            ended: None,
            error: None,
            html: None,
            status: None,
            row_id: None,
            found: None,
            reason: None,
        }
    }

    /// Messages `from..=to`, user and assistant in turn (odd seqs the user's).
    fn range(from: i64, to: i64) -> Vec<Message> {
        (from..=to)
            .map(|seq| {
                let role = if seq % 2 == 1 {
                    Role::User
                } else {
                    Role::Assistant
                };
                message(seq, role)
            })
            .collect()
    }

    fn seqs(history: &LoadedHistory) -> Vec<i64> {
        history.messages.iter().map(|m| m.seq).collect()
    }

    #[test]
    fn older_pages_go_before_and_the_newest_page_read_again_joins_them() {
        let mut history = LoadedHistory::default();
        history.take_newest(range(41, 60), 40);
        assert_eq!((history.first_seq(), history.older), (Some(41), 40));
        history.take_older(range(21, 40), 20);
        assert_eq!(seqs(&history), (21..=60).collect::<Vec<_>>());
        assert_eq!(history.older, 20);

        // Two messages were added: the newest 20 are 43..=62.
        history.take_newest(range(43, 62), 42);
        assert_eq!(seqs(&history), (21..=62).collect::<Vec<_>>());
        assert_eq!(history.older, 20);
        // The same page again changes nothing.
        history.take_newest(range(43, 62), 42);
        assert_eq!(seqs(&history), (21..=62).collect::<Vec<_>>());
    }

    #[test]
    fn a_newest_page_that_does_not_meet_what_was_read_replaces_it() {
        let mut history = LoadedHistory::default();
        history.take_newest(range(41, 60), 40);
        // 30 messages written since: 61..=90, the page 71..=90.
        history.take_newest(range(71, 90), 70);
        assert_eq!(seqs(&history), (71..=90).collect::<Vec<_>>());
        assert_eq!(history.older, 70);
    }

    #[test]
    fn an_older_page_is_not_taken_twice_or_over_what_is_read() {
        let mut history = LoadedHistory::default();
        history.take_newest(range(41, 60), 40);
        history.take_older(range(21, 40), 20);
        // A late answer for the same cursor.
        history.take_older(range(21, 40), 20);
        assert_eq!(seqs(&history), (21..=60).collect::<Vec<_>>());
        history.take_older(range(1, 20), 0);
        assert_eq!(seqs(&history), (1..=60).collect::<Vec<_>>());
        assert_eq!(history.older, 0);
    }

    #[test]
    fn an_empty_chat_is_an_empty_history() {
        let mut history = LoadedHistory::default();
        history.take_newest(vec![], 0);
        assert_eq!((history.first_seq(), history.older), (None, 0));
        assert!(history.before_live_reply().is_empty());
    }

    #[test]
    fn a_followed_reply_keeps_history_up_to_its_user_message() {
        let mut history = LoadedHistory::default();
        history.take_newest(range(1, 7), 0);
        history.messages.push(message(8, Role::Tool));
        let shown: Vec<i64> = history.before_live_reply().iter().map(|m| m.seq).collect();
        assert_eq!(shown, (1..=7).collect::<Vec<_>>());

        // A reply longer than the page: every row read is the reply's.
        let mut long_reply = LoadedHistory::default();
        long_reply.take_newest((101..=160).map(|s| message(s, Role::Tool)).collect(), 100);
        assert!(long_reply.before_live_reply().is_empty());
        // A chat of tool rows alone (no user message anywhere) shows them.
        let mut no_user = LoadedHistory::default();
        no_user.take_newest(vec![message(1, Role::Assistant)], 0);
        assert_eq!(no_user.before_live_reply().len(), 1);
    }
}
