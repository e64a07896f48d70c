//! Echo's audio over a real WebSocket: `audio_start`, binary frames, the
//! segmenter and a stand-in recogniser that answers scripted text and
//! records what it was given; then the utterance path with the stand-in
//! model. The audio is made here: a harmonic tone the voice-activity
//! detector takes for speech, with silence around it.

mod support;

use std::collections::VecDeque;
use std::sync::{mpsc, Arc, Mutex};

use app::protocol::MAX_AUDIO_FRAME_BYTES;
use imprint::speech::{self, Hint, Speech, Transcript, MAX_WAITING_JOBS};
use imprint::voice::segmenter::synthetic::{silence, tone};
use imprint::voice::segmenter::MAX_UTTERANCE_SAMPLES;
use imprint::voice::Recogniser;
use serde_json::{json, Value};
use support::echo::Echo;
use support::*;

/// What the stand-in recogniser was given: samples and the hint.
type Given = Arc<Mutex<Vec<(usize, Hint)>>>;

/// Answers each utterance with the next scripted text (the last one again
/// when the script runs out), and records what it heard. While `held`, each
/// job waits for the test's go (or for the test to drop its sender).
struct Scripted {
    script: VecDeque<String>,
    given: Given,
    held: Option<mpsc::Receiver<()>>,
    started: tokio::sync::mpsc::UnboundedSender<()>,
}

impl speech::Engine for Scripted {
    fn transcribe(&mut self, samples: &[f32], hint: &Hint) -> Result<Transcript, String> {
        self.given
            .lock()
            .unwrap()
            .push((samples.len(), hint.clone()));
        let _ = self.started.send(());
        if let Some(held) = &self.held {
            // A dropped sender lets every job go.
            let _ = held.recv();
        }
        let text = match self.script.len() {
            0 => String::new(),
            1 => self.script[0].clone(),
            _ => self.script.pop_front().unwrap_or_default(),
        };
        Ok(Transcript {
            text,
            confidence: Some(0.9),
        })
    }
}

/// A stand-in recogniser and what a test sees of it.
struct Ears {
    recogniser: Recogniser,
    speech: Speech,
    given: Given,
    started: tokio::sync::mpsc::UnboundedReceiver<()>,
    /// Lets one held job go; dropped, lets them all go.
    release: Option<mpsc::Sender<()>>,
}

impl Ears {
    fn new(script: &[&str], held: bool) -> Self {
        let (release, hold) = mpsc::channel();
        let (started_tx, started) = tokio::sync::mpsc::unbounded_channel();
        let given = Given::default();
        let speech = Speech::start(Scripted {
            script: script.iter().map(|s| s.to_string()).collect(),
            given: Arc::clone(&given),
            held: held.then_some(hold),
            started: started_tx,
        })
        .unwrap();
        Self {
            recogniser: Recogniser::new("scripted", speech.clone()),
            speech,
            given,
            started,
            release: held.then_some(release),
        }
    }

    fn given(&self) -> Vec<(usize, Hint)> {
        self.given.lock().unwrap().clone()
    }
}

/// A server hearing with `ears`, and a socket on it with audio started.
async fn listening(scenarios: Vec<Scenario>, ears: &Ears) -> (TestServer, Echo) {
    let server = TestServer::start_with_recogniser(scenarios, ears.recogniser.clone()).await;
    let (mut echo, _) = Echo::connect(&server, json!({"type": "hello"})).await;
    echo.send(json!({"type": "audio_start", "format": "s16le", "sample_rate": 16000}))
        .await;
    let ready = echo.until("audio_ready").await.pop().unwrap();
    assert_eq!(ready["recogniser"], "scripted");
    (server, echo)
}

/// 400 ms of speech with silence around it: too short for an interim
/// text, so the recogniser hears only the final.
fn utterance() -> Vec<i16> {
    [silence(0.3), tone(0.4), silence(1.0)].concat()
}

fn kinds(seen: &[Value]) -> Vec<&str> {
    seen.iter().map(|m| m["type"].as_str().unwrap()).collect()
}

fn ask(trigger: &str, options: &[&str]) -> Scenario {
    Scenario {
        trigger: trigger.into(),
        turns: vec![
            Turn::ask("Which project?", options),
            Turn::text("Here are the notes."),
        ],
        once: false,
    }
}

async fn waiting_question(echo: &mut Echo, text: &str) -> Value {
    echo.send(json!({"type": "typed", "text": text})).await;
    echo.until("question").await.pop().unwrap()
}

#[tokio::test]
async fn speech_is_heard_and_becomes_the_next_turn() {
    let ears = Ears::new(&["What is on my list?"], false);
    let (_server, mut echo) = listening(vec![], &ears).await;
    echo.send_audio(&utterance()).await;
    let seen = echo.until("turn_started").await;
    assert_eq!(
        kinds(&seen),
        ["hearing", "thinking", "heard", "turn_started"]
    );
    assert_eq!(seen[2]["text"], "What is on my list?");
    assert_eq!(seen[2]["confidence"], 0.9);
    assert_eq!(seen[3]["text"], "What is on my list?");
    let given = ears.given();
    assert_eq!(given.len(), 1, "one utterance, heard once");
    let (samples, hint) = &given[0];
    // 400 ms of tone, with about 200 ms before and after it.
    assert!((10_000..20_000).contains(samples), "{samples} samples");
    assert_eq!(hint, &Hint::default());
    assert_eq!(
        echo.until("assistant_message").await.pop().unwrap()["text"],
        "You said: What is on my list?"
    );
}

#[tokio::test]
async fn a_waiting_questions_choices_are_the_hint_and_a_choice_said_answers_it() {
    let ears = Ears::new(&["the second one"], false);
    let (_server, mut echo) =
        listening(vec![ask("which notes", &["Garden shed", "Billing"])], &ears).await;
    let question = waiting_question(&mut echo, "which notes").await;
    echo.send_audio(&utterance()).await;
    let seen = echo.until("answered").await;
    // The reply's own events may interleave once the answer is taken.
    let said = ["hearing", "thinking", "heard", "answering", "answered"];
    let voice: Vec<&Value> = seen
        .iter()
        .filter(|m| said.contains(&m["type"].as_str().unwrap()))
        .collect();
    let order: Vec<&str> = voice.iter().map(|m| m["type"].as_str().unwrap()).collect();
    assert_eq!(
        order,
        ["hearing", "thinking", "heard", "answering", "answered"]
    );
    assert_eq!(voice[3]["text"], "Billing");
    assert_eq!(voice[4]["question_id"], question["id"]);
    assert_eq!(ears.given()[0].1.options, ["Garden shed", "Billing"]);
}

#[tokio::test]
async fn a_choice_inside_the_spoken_question_is_an_answer_and_the_question_itself_is_echo() {
    let ears = Ears::new(
        &["You can say Garden shed or Billing", "Garden shed."],
        false,
    );
    let (_server, mut echo) =
        listening(vec![ask("shed notes", &["Garden shed", "Billing"])], &ears).await;
    let question = waiting_question(&mut echo, "shed notes").await;
    assert_eq!(
        question["speech"],
        "Which project? You can say Garden shed or Billing, or something else."
    );
    // The browser cannot speak (headless): it says so at once.
    let speech = question["speech"].clone();
    echo.send(json!({"type": "speaking", "text": speech})).await;
    echo.send(json!({"type": "spoke", "text": speech})).await;
    // Echo's own sentence, heard just after it: ignored.
    echo.send_audio(&utterance()).await;
    let ignored = echo.until("ignored").await.pop().unwrap();
    assert_eq!(ignored["reason"], "echo");
    // "Garden shed" is in that sentence too, but it is a choice: the answer.
    echo.send_audio(&utterance()).await;
    let answered = echo.until("answered").await.pop().unwrap();
    assert_eq!(answered["text"], "Garden shed");
}

#[tokio::test]
async fn a_spoken_stop_stops_the_reply() {
    let mut slow = Turn::text("Thinking about it.");
    slow.stall = true;
    let ears = Ears::new(&["Stop."], false);
    let (_server, mut echo) = listening(vec![scenario("long story", vec![slow])], &ears).await;
    echo.send(json!({"type": "typed", "text": "tell me a long story"}))
        .await;
    echo.until("token").await;
    echo.send_audio(&utterance()).await;
    let seen = echo.until("stopped").await;
    assert!(kinds(&seen).contains(&"heard"), "{seen:?}");
    echo.until("done").await;
}

#[tokio::test]
async fn an_empty_transcript_is_noise() {
    let ears = Ears::new(&[""], false);
    let (_server, mut echo) = listening(vec![], &ears).await;
    echo.send_audio(&utterance()).await;
    let seen = echo.until("ignored").await;
    assert_eq!(kinds(&seen), ["hearing", "thinking", "heard", "ignored"]);
    assert_eq!(seen[3]["reason"], "noise");
}

#[tokio::test]
async fn long_speech_gets_interim_text_and_audio_end_hears_what_is_in_progress() {
    let ears = Ears::new(&["a long thought"], false);
    let (_server, mut echo) = listening(vec![], &ears).await;
    echo.send_audio(&[silence(0.3), tone(4.0)].concat()).await;
    let seen = echo.until("interim").await;
    assert_eq!(kinds(&seen), ["hearing", "interim"]);
    assert_eq!(seen[1]["text"], "a long thought");
    // The microphone goes off mid-speech: what was said is still heard.
    echo.send(json!({"type": "audio_end"})).await;
    let seen = echo.until("heard").await;
    let thinking = kinds(&seen).iter().position(|k| *k == "thinking").unwrap();
    assert!(
        !kinds(&seen)[thinking..].contains(&"interim"),
        "no interim after its utterance ended: {seen:?}"
    );
    let given = ears.given();
    let (final_samples, final_hint) = given.last().unwrap();
    assert!(
        *final_samples >= 4 * 16_000,
        "the whole speech: {final_samples}"
    );
    // Interims are drafts (a quick pass); the final text is not.
    assert!(given[..given.len() - 1].iter().all(|(_, hint)| hint.draft));
    assert!(!final_hint.draft);
    assert!(
        given.len() <= 1 + 4,
        "at most one interim a second of speech: {given:?}"
    );
    // Frames after audio_end are refused, once.
    echo.send_audio(&utterance()).await;
    let error = echo.until("error").await.pop().unwrap();
    assert!(
        error["error"].as_str().unwrap().contains("audio_end"),
        "{error}"
    );
}

#[tokio::test]
async fn an_utterance_past_the_longest_is_cut_and_heard_up_to_there() {
    let ears = Ears::new(&["a very long story"], false);
    let (_server, mut echo) = listening(vec![], &ears).await;
    echo.send_audio(&[silence(0.3), tone(17.0), silence(1.0)].concat())
        .await;
    let seen = echo.until("heard").await;
    let order = kinds(&seen);
    let at = |kind: &str| order.iter().position(|k| *k == kind).unwrap();
    assert!(at("hearing") < at("ignored") && at("ignored") < at("thinking"));
    assert_eq!(seen[at("ignored")]["reason"], "audio_too_long");
    assert_eq!(order.iter().filter(|k| **k == "ignored").count(), 1);
    assert_eq!(ears.given().last().unwrap().0, MAX_UTTERANCE_SAMPLES);
    // The rest of that speech is let go: the next thing heard is the next
    // utterance.
    echo.send_audio(&utterance()).await;
    let next = echo.until("thinking").await;
    assert_eq!(
        kinds(&next).iter().filter(|k| **k == "hearing").count(),
        1,
        "{next:?}"
    );
}

#[tokio::test]
async fn a_client_faster_than_the_recogniser_is_held_to_the_backlog() {
    let mut ears = Ears::new(&["heard at last"], true);
    let (_server, mut echo) = listening(vec![], &ears).await;
    // Three 12 s utterances while the recogniser holds: the first two fill
    // the 30 s backlog, the third is dropped.
    let long = [silence(0.3), tone(12.0), silence(1.0)].concat();
    for _ in 0..3 {
        echo.send_audio(&long).await;
    }
    let seen = echo.until("ignored").await;
    assert_eq!(seen.last().unwrap()["reason"], "audio_backlog");
    assert_eq!(kinds(&seen).iter().filter(|k| **k == "thinking").count(), 2);
    drop(ears.release.take());
    let mut heard = 0;
    while heard < 2 {
        let message = echo.next().await;
        assert_ne!(message["type"], "error", "{message}");
        heard += usize::from(message["type"] == "heard");
    }
    let finals = ears
        .given()
        .iter()
        .filter(|(samples, _)| *samples > 12 * 16_000)
        .count();
    assert_eq!(
        finals, 2,
        "the dropped utterance never reached the recogniser"
    );
}

#[tokio::test]
async fn a_recogniser_full_of_other_work_answers_busy() {
    let mut ears = Ears::new(&["too late"], true);
    let (_server, mut echo) = listening(vec![], &ears).await;
    // Work that did not come through the socket's gate fills the queue:
    // one job on the recogniser's thread, the queue full behind it. Each is
    // polled once, which queues it, and kept to be heard later.
    let mut others = Vec::new();
    for n in 0..=MAX_WAITING_JOBS {
        let speech = ears.speech.clone();
        let mut job =
            Box::pin(async move { speech.transcribe(vec![0.0; 160], Hint::default()).await });
        assert!(futures::poll!(&mut job).is_pending());
        others.push(job);
        if n == 0 {
            ears.started.recv().await.unwrap();
        }
    }
    echo.send_audio(&utterance()).await;
    let seen = echo.until("ignored").await;
    assert_eq!(kinds(&seen), ["hearing", "thinking", "ignored"]);
    assert_eq!(seen[2]["reason"], "busy");
    drop(ears.release.take());
    for other in others {
        assert!(other.await.is_ok());
    }
}

#[tokio::test]
async fn frames_are_refused_before_audio_start_and_when_malformed() {
    let ears = Ears::new(&["hello"], false);
    let server = TestServer::start_with_recogniser(vec![], ears.recogniser.clone()).await;
    let (mut echo, _) = Echo::connect(&server, json!({"type": "hello"})).await;
    echo.send_audio(&utterance()).await;
    let error = echo.until("error").await.pop().unwrap();
    assert!(
        error["error"].as_str().unwrap().contains("audio_start"),
        "{error}"
    );
    echo.send(json!({"type": "audio_start", "format": "f32le", "sample_rate": 48000}))
        .await;
    let refused = echo.until("audio_unavailable").await;
    assert_eq!(
        kinds(&refused),
        ["audio_unavailable"],
        "the frames' error was said once"
    );
    assert!(refused[0]["error"]
        .as_str()
        .unwrap()
        .contains("s16le at 16000 Hz"));
    echo.send(json!({"type": "audio_start", "format": "s16le", "sample_rate": 16000}))
        .await;
    echo.until("audio_ready").await;
    echo.send_frame(vec![0; MAX_AUDIO_FRAME_BYTES + 2]).await;
    let ignored = echo.until("ignored").await.pop().unwrap();
    assert_eq!(ignored["reason"], "frame_too_large");
    echo.send_frame(vec![0; 301]).await;
    let error = echo.until("error").await.pop().unwrap();
    assert!(error["error"].as_str().unwrap().contains("odd"), "{error}");
    // The socket is still open and hears well-formed audio.
    echo.send_audio(&utterance()).await;
    assert_eq!(echo.until("heard").await.pop().unwrap()["text"], "hello");
}

#[tokio::test]
async fn without_a_recogniser_audio_is_unavailable() {
    let server = TestServer::start(vec![], &[]).await;
    let (mut echo, _) = Echo::connect(&server, json!({"type": "hello"})).await;
    echo.send(json!({"type": "audio_start", "format": "s16le", "sample_rate": 16000}))
        .await;
    let unavailable = echo.until("audio_unavailable").await.pop().unwrap();
    assert!(unavailable["error"]
        .as_str()
        .unwrap()
        .contains("recogniser"));
    echo.send_audio(&utterance()).await;
    echo.until("error").await;
    // Typed text still works.
    echo.send(json!({"type": "typed", "text": "hello there"}))
        .await;
    echo.until("turn_started").await;
}

#[tokio::test]
async fn a_socket_closed_mid_utterance_leaves_nothing_behind() {
    let ears = Ears::new(&["only this"], false);
    let (server, mut echo) = listening(vec![], &ears).await;
    echo.send_audio(&[silence(0.3), tone(0.5)].concat()).await;
    echo.until("hearing").await;
    echo.socket.close(None).await.unwrap();
    drop(echo);
    // A new window is heard, and only its utterance reaches the recogniser.
    let (mut again, _) = Echo::connect(&server, json!({"type": "hello"})).await;
    again
        .send(json!({"type": "audio_start", "format": "s16le", "sample_rate": 16000}))
        .await;
    again.until("audio_ready").await;
    again.send_audio(&utterance()).await;
    assert_eq!(
        again.until("heard").await.pop().unwrap()["text"],
        "only this"
    );
    assert_eq!(ears.given().len(), 1, "{:?}", ears.given());
    assert_eq!(ears.recogniser.free_places(), MAX_WAITING_JOBS);
}
