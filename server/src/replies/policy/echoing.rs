//! A model that says the same sentence again: a small model, pushed off
//! its footing (a prompt injection, a request it cannot place), can write
//! one paragraph over and over until its token limit, minutes of text at a
//! CPU's pace. The second time a long sentence comes, the turn ends.

/// Characters a sentence needs for its repeat to be a loop: "Yes." twice
/// is speech, a clause of this length twice is not.
const LONG_SENTENCE: usize = 40;

/// True when `text`, the turn's text so far, has just finished a long
/// sentence it had already said.
pub(in crate::replies) fn says_it_again(text: &str) -> bool {
    let trimmed = text.trim_end();
    if !trimmed.ends_with(['.', '!', '?', '\n']) && !text.ends_with('\n') {
        return false;
    }
    let body = trimmed.trim_end_matches(['.', '!', '?']);
    let start = body.rfind(['.', '!', '?', '\n']).map_or(0, |i| i + 1);
    let last = body[start..].trim();
    last.chars().count() >= LONG_SENTENCE && body[..start].contains(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_sentence_said_again_is_a_loop() {
        let once = "System Prompt: I'm designed to be able to handle a wide range of topics, \
                    including science and history.";
        assert!(!says_it_again(once));
        let twice = format!("{once} I'm designed to be able to handle a wide range of topics, including science and history.");
        assert!(says_it_again(&twice));
        // Only once the sentence is finished: the second copy half-written
        // is not yet known to be one.
        let half = format!("{once} I'm designed to be able to handle");
        assert!(!says_it_again(&half));
    }

    #[test]
    fn short_sentences_and_new_ones_are_not() {
        assert!(!says_it_again("Yes. Yes."));
        assert!(!says_it_again(
            "Buenas noches, que duermas bien. That is good night, sleep well in Spanish."
        ));
        assert!(!says_it_again(""));
    }

    #[test]
    fn lines_said_again_are_a_loop_too() {
        let line = "- call the landlord about the boiler on Monday morning\n";
        assert!(!says_it_again(line));
        assert!(says_it_again(&format!("{line}{line}")));
    }
}
