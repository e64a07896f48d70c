//! The local recogniser with its real weights: speech made by espeak-ng at
//! test time goes through the speech thread and comes back as its words.
//! Needs the weights (`scripts/local-model.sh ensure`) and espeak-ng with
//! sox (`scripts/setup.sh`); `scripts/test.sh` sets both up first, so a
//! missing one fails here rather than skipping.

#[path = "../examples/speech_support/mod.rs"]
mod speech_support;

use imprint::speech::{self, Hint};
use imprint_text::voice::match_option;

fn words(text: &str) -> String {
    text.to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::test(flavor = "multi_thread")]
async fn spoken_words_come_back_as_text_and_options_are_heard_as_options() {
    let dir = speech_support::model_dir().unwrap_or_else(|e| panic!("{e}"));
    let work = tempfile::tempdir().unwrap();
    let speak = |text: &str, name: &str| {
        let wav = speech_support::speak(text, "en-us", 150, work.path(), name)
            .unwrap_or_else(|e| panic!("{e}"));
        speech_support::read_wav(&wav).unwrap_or_else(|e| panic!("{e}"))
    };
    // A sentence tiny.en hears right from espeak-ng's en-us voice (it
    // hears "the plumber's number" as "the Plumber's Amber": see
    // docs/speech.md); a broken mel or renaming would give no words of it.
    let request = speak("Tell me what I saved about the car", "request");
    let billing = speak("Billing", "billing");

    let speech = speech::start(Some(&dir))
        .unwrap_or_else(|e| panic!("{e}"))
        .expect("a folder was given");
    assert_eq!(speech.recogniser(), "whisper-tiny.en");

    let heard = speech.transcribe(request, Hint::default()).await.unwrap();
    let text = words(&heard.text);
    // Its start and its last word, not every word: at some speeds
    // "about" comes back as "them out of".
    assert!(
        text.starts_with("tell me what i saved") && text.ends_with(" car"),
        "heard {:?}",
        heard.text
    );
    let confidence = heard.confidence.expect("a confidence");
    assert!((0.0..=1.0).contains(&confidence), "{confidence}");

    let options: Vec<String> = ["Imprint", "Billing", "Garden"].map(String::from).to_vec();
    let heard = speech
        .transcribe(
            billing,
            Hint {
                options: options.clone(),
                ..Hint::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        match_option(&heard.text, &options).as_deref(),
        Some("Billing"),
        "heard {:?}",
        heard.text
    );

    let silence = speech
        .transcribe(vec![0.0; 16_000], Hint::default())
        .await
        .unwrap();
    assert_eq!(silence.text, "", "silence is not words");
}

#[test]
fn a_folder_without_weights_is_an_error_that_says_what_to_run() {
    let empty = tempfile::tempdir().unwrap();
    let error = speech::start(Some(empty.path())).err().expect("no weights");
    assert!(error.to_string().contains("config.json"), "{error}");
    assert!(
        error.to_string().contains("local-model.sh ensure"),
        "{error}"
    );
    assert!(
        speech::start(None).unwrap().is_none(),
        "no folder: speech is off"
    );
}
