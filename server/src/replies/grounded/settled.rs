//! The settling part's own state ([`Settling`]): whether the reply is
//! still before its first model turn (Imprint may ask which project,
//! which thing, or when), and the details Imprint asked for in this reply
//! with what came of each. Changed only here.

use crate::grounding::{NeedKind, Resolved};

pub(in crate::replies) struct Settling {
    /// Before the first model turn.
    open: bool,
    /// The details Imprint asked for in this reply, and what came of it.
    settled: Vec<(NeedKind, Option<Resolved>)>,
}

impl Default for Settling {
    fn default() -> Self {
        Self {
            open: true,
            settled: Vec::new(),
        }
    }
}

impl Settling {
    /// As stored with the reply's state.
    pub(in crate::replies) fn restored(
        open: bool,
        settled: Vec<(NeedKind, Option<Resolved>)>,
    ) -> Self {
        Self { open, settled }
    }

    /// Still before the first model turn.
    pub(in crate::replies) fn is_open(&self) -> bool {
        self.open
    }

    /// Settling is over: the model turns start.
    pub(in crate::replies) fn close(&mut self) {
        self.open = false;
    }

    /// What came of a detail of `kind` asked for before, if it was.
    pub(in crate::replies) fn of(&self, kind: NeedKind) -> Option<&Option<Resolved>> {
        self.settled
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, r)| r)
    }

    /// A detail asked for, and what came of it (`None`: nothing usable).
    pub(in crate::replies) fn settle(&mut self, kind: NeedKind, resolved: Option<Resolved>) {
        self.settled.push((kind, resolved));
    }

    pub(in crate::replies) fn all(&self) -> &[(NeedKind, Option<Resolved>)] {
        &self.settled
    }

    /// What the user said, in their own words, a reference of the request
    /// means ("Tom" for "him").
    pub(in crate::replies) fn meant(&self) -> Option<&str> {
        self.settled
            .iter()
            .find_map(|(kind, resolved)| match resolved {
                Some(Resolved::Meant(words)) if *kind == NeedKind::Reference => {
                    Some(words.as_str())
                }
                _ => None,
            })
    }

    /// The label of the thing the user chose from Imprint's options for
    /// a reference ("remind me about it" → "Billing meeting (12 Nov)").
    pub(in crate::replies) fn chosen_label(&self) -> Option<&str> {
        self.settled
            .iter()
            .find_map(|(kind, resolved)| match resolved {
                Some(Resolved::Memory { label, .. }) if *kind == NeedKind::Reference => {
                    Some(label.as_str())
                }
                _ => None,
            })
    }

    /// The first memory the user chose from Imprint's options for a
    /// pronoun of a person ("he's", "her"), as it was kept (the memory
    /// line's content): whom the request's pronoun stands for. Not for a
    /// thing's reference ("the meeting"), whose memory may name others.
    pub(in crate::replies) fn chosen_person(&self) -> Option<String> {
        self.settled
            .iter()
            .find_map(|(kind, resolved)| match resolved {
                Some(Resolved::Memory {
                    memories, phrase, ..
                }) if *kind == NeedKind::Reference
                    && crate::grounding::reference::is_person_pronoun(phrase) =>
                {
                    memories
                        .iter()
                        .find_map(|line| crate::memory_lines::MemoryLine::read(line))
                        .map(|memory| memory.content.to_string())
                }
                _ => None,
            })
    }

    /// Imprint asked what a reference means, and no answer said.
    pub(in crate::replies) fn reference_unknown(&self) -> bool {
        self.settled
            .iter()
            .any(|(kind, resolved)| *kind == NeedKind::Reference && resolved.is_none())
    }

    /// Imprint asked for a detail in this reply, and it never came.
    pub(in crate::replies) fn details_asked(&self) -> bool {
        self.settled.iter().any(|(_, r)| r.is_none())
    }

    /// Some detail Imprint asked for was answered usably.
    pub(in crate::replies) fn any_answered(&self) -> bool {
        self.settled.iter().any(|(_, r)| r.is_some())
    }

    /// The project Imprint's question settled, if it asked.
    pub(in crate::replies) fn project(&self) -> Option<String> {
        self.settled.iter().find_map(|(_, r)| match r {
            Some(Resolved::Project(p)) => Some(p.clone()),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Settling;
    use crate::grounding::{NeedKind, Resolved};

    fn chose(phrase: &str) -> Settling {
        let mut settling = Settling::default();
        settling.settle(
            NeedKind::Reference,
            Some(Resolved::Memory {
                label: "Billing meeting (12 Nov)".into(),
                memories: vec![
                    "[3] (Billing, 2030-05-12) Billing meeting with Dana: invoices move to Stripe"
                        .into(),
                ],
                phrase: phrase.into(),
            }),
        );
        settling
    }

    #[test]
    fn the_person_chosen_is_whom_a_pronoun_of_a_person_stands_for() {
        let person = "Billing meeting with Dana: invoices move to Stripe";
        assert_eq!(chose("he's").chosen_person().as_deref(), Some(person));
        assert_eq!(chose("Her").chosen_person().as_deref(), Some(person));
        assert_eq!(chose("she’d").chosen_person().as_deref(), Some(person));
        // A thing's reference names no one a note's "he" could be, and
        // nor does a state kept before the phrase was.
        assert_eq!(chose("the meeting").chosen_person(), None);
        assert_eq!(chose("it").chosen_person(), None);
        assert_eq!(chose("").chosen_person(), None);
    }
}
