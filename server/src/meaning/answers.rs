//! Whether what the user types while Imprint's question waits answers it
//! or is a new request ("what's the door code?" typed under "Which kiln
//! booking do you mean?"): by its nearest examples of each, the replies
//! to a question (`answers.tsv`) against the requests (`examples.tsv`).
//! Data, not rules: a reply judged wrong becomes another example.

use super::index::{Query, VectorIndex};
use super::route::mean_of_nearest;

/// Example replies to a question, one a line.
pub const ANSWERS: &str = include_str!("answers.tsv");

/// The lead the requests' mean similarity needs over the answers' for a
/// reply to be a new request. Above zero: a reply that reads as much like
/// either stays the answer the user was asked for.
pub const NEW_REQUEST_MARGIN: f32 = 0.05;

/// A reply of fewer words is an answer, whatever it reads like ("Priya's",
/// "the big one"): a new request says what it asks and of what.
pub const MIN_REQUEST_WORDS: usize = 3;

/// A reply this near (cosine) one of the question's options is about what
/// was asked, so it is taken as the answer, even when it is shaped like a
/// request ("when is the big kiln booked?" under "Which kiln booking?").
pub const NEAR_AN_OPTION: f32 = 0.5;

/// True when a reply typed while Imprint's question waits is a new
/// request: long enough to be one, nearer the requests than the answers
/// by [`NEW_REQUEST_MARGIN`], and about none of the options.
pub fn is_new_request(reading: Reading, nearest_option: Option<f32>, words: usize) -> bool {
    words >= MIN_REQUEST_WORDS
        && reading.is_new_request()
        && nearest_option.is_none_or(|near| near < NEAR_AN_OPTION)
}

/// The example replies: every line that is not blank or a comment.
pub fn parse_answers(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// How near a reply is to each side: the mean similarity of its
/// [`super::route::NEIGHBOURS`] nearest answers and nearest requests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reading {
    pub answer: f32,
    pub request: f32,
}

impl Reading {
    pub fn is_new_request(&self) -> bool {
        self.request - self.answer >= NEW_REQUEST_MARGIN
    }
}

/// The embedded example answers and requests.
pub struct AnswerJudge {
    index: VectorIndex,
    /// By example id: true for an answer.
    is_answer: Vec<bool>,
}

impl AnswerJudge {
    pub fn new(answers: &[Vec<f32>], requests: &[Vec<f32>]) -> Self {
        let mut index = VectorIndex::default();
        let mut is_answer = Vec::with_capacity(answers.len() + requests.len());
        for (vector, answer) in answers
            .iter()
            .map(|v| (v, true))
            .chain(requests.iter().map(|v| (v, false)))
        {
            index.put(is_answer.len() as i64, vector);
            is_answer.push(answer);
        }
        Self { index, is_answer }
    }

    /// How near the reply whose vector is `reply` is to each side; `None`
    /// when either side has no examples.
    pub fn read(&self, reply: &[f32]) -> Option<Reading> {
        let nearest = self
            .index
            .nearest(&Query::new(reply), self.index.len(), None);
        let mean_of = |answer: bool| {
            mean_of_nearest(&nearest, |id| {
                self.is_answer.get(id as usize) == Some(&answer)
            })
        };
        Some(Reading {
            answer: mean_of(true)?,
            request: mean_of(false)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        let mut full = vec![0.0; crate::meaning::DIMENSIONS];
        for (i, x) in v.iter().enumerate() {
            full[i] = x / norm;
        }
        full
    }

    #[test]
    fn a_reply_is_read_against_its_nearest_of_each_side() {
        let answers = vec![unit(&[1.0, 0.0, 0.0]), unit(&[0.9, 0.1, 0.0])];
        let requests = vec![unit(&[0.0, 1.0, 0.0]), unit(&[0.0, 0.9, 0.1])];
        let judge = AnswerJudge::new(&answers, &requests);
        let like_a_request = judge.read(&unit(&[0.1, 1.0, 0.0])).unwrap();
        assert!(like_a_request.is_new_request(), "{like_a_request:?}");
        let like_an_answer = judge.read(&unit(&[1.0, 0.1, 0.0])).unwrap();
        assert!(!like_an_answer.is_new_request(), "{like_an_answer:?}");
        // Halfway reads as the answer it was asked for.
        let between = judge.read(&unit(&[1.0, 1.0, 0.0])).unwrap();
        assert!(!between.is_new_request(), "{between:?}");
    }

    #[test]
    fn a_short_reply_or_one_about_an_option_is_the_answer() {
        let request_like = Reading {
            answer: 0.3,
            request: 0.6,
        };
        assert!(is_new_request(request_like, None, 4));
        assert!(is_new_request(request_like, Some(0.2), 4));
        assert!(!is_new_request(request_like, Some(0.7), 4));
        assert!(!is_new_request(request_like, None, 2));
        let answer_like = Reading {
            answer: 0.6,
            request: 0.3,
        };
        assert!(!is_new_request(answer_like, None, 6));
    }

    #[test]
    fn with_no_examples_on_a_side_nothing_is_judged() {
        let judge = AnswerJudge::new(&[unit(&[1.0, 0.0])], &[]);
        assert_eq!(judge.read(&unit(&[1.0, 0.0])), None);
    }

    #[test]
    fn the_shipped_answers_are_read_without_comments() {
        let answers = parse_answers(ANSWERS);
        assert!(answers.len() >= 60, "{}", answers.len());
        assert!(answers
            .iter()
            .all(|a| !a.starts_with('#') && !a.contains('\t')));
    }
}
