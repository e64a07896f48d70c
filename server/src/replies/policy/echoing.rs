//! A model that says the same sentence again: a small model, pushed off
//! its footing (a prompt injection, a request it cannot place), can write
//! one paragraph over and over until its token limit, minutes of text at a
//! CPU's pace. The second time a long sentence comes, the turn ends.

/// Characters a sentence needs for its repeat to be a loop: "Yes." twice
/// is speech, a clause of this length twice is not.
const LONG_SENTENCE: usize = 40;

/// Words (numbers left out) a turn's tail is read over for a loop of a
/// few words ("1. Oven 2. Oven rack 3. Oven rack 4. Oven rack …").
const TAIL_WORDS: usize = 30;

/// At most this many different words in [`TAIL_WORDS`] is a loop: a
/// sentence of 30 words says more than 6 things.
const FEW_WORDS: usize = 6;

/// True when `text`, the turn's text so far, has just finished a long
/// sentence it had already said, or goes round a few short words (a
/// numbered list of the same item).
pub(in crate::replies) fn says_it_again(text: &str) -> bool {
    goes_round_few_words(text) || says_a_long_sentence_again(text)
}

fn goes_round_few_words(text: &str) -> bool {
    let tail = &text[text.floor_char_boundary(text.len().saturating_sub(TAIL_WORDS * 24))..];
    let words: Vec<String> = imprint_text::words::plain(tail)
        .into_iter()
        .filter(|w| !w.chars().any(|c| c.is_ascii_digit()))
        .collect();
    let Some(last) = words.len().checked_sub(TAIL_WORDS) else {
        return false;
    };
    let distinct: std::collections::HashSet<&String> = words[last..].iter().collect();
    distinct.len() <= FEW_WORDS
}

fn says_a_long_sentence_again(text: &str) -> bool {
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
    fn a_numbered_list_of_the_same_item_is_a_loop() {
        let mut list = String::from("The order of ref for the new oven is as follows:");
        for n in 1..=12 {
            list.push_str(&format!(" {n}. Oven rack"));
        }
        assert!(!says_it_again(&list));
        for n in 13..=20 {
            list.push_str(&format!(" {n}. Oven rack"));
        }
        assert!(says_it_again(&list));
        // A long answer of many words is no loop.
        let long = "Lomé lies on the Gulf of Guinea, an arm of the Atlantic Ocean,                     at the south-western corner of Togo beside the border with Ghana,                     and its port is one of the deepest on the West African coast,                     serving Burkina Faso, Niger and Mali as well.";
        assert!(!says_it_again(long));
    }

    #[test]
    fn lines_said_again_are_a_loop_too() {
        let line = "- call the landlord about the boiler on Monday morning\n";
        assert!(!says_it_again(line));
        assert!(says_it_again(&format!("{line}{line}")));
    }
}
