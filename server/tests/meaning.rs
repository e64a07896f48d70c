//! Finding by meaning with the real embedding model (all-MiniLM-L6-v2):
//! its vectors agree with the published figures, a memory is found by what
//! it means among near misses, exact codes still count, and requests are
//! routed by the shipped labelled examples. Needs the weights
//! (`scripts/embedding-model.sh ensure`, run by `scripts/test.sh` through
//! `scripts/local-model.sh ensure`), so a missing one fails here rather
//! than skipping.

use std::time::Duration;

use imprint::meaning::route::Routed;
use imprint::meaning::{Meaning, MeaningState};
use imprint::store::{MemoryQuery, NewMemory, Store};
use tokio_util::sync::CancellationToken;

fn model_dir() -> std::path::PathBuf {
    let dir = imprint::meaning::cached_model_dir().expect("a cache directory");
    if let Some(missing) = imprint::meaning::minilm::missing_file(&dir) {
        panic!(
            "no {missing} in {}: run scripts/embedding-model.sh ensure",
            dir.display()
        );
    }
    dir
}

/// A started `Meaning` over `store`, once its vectors are all filled in.
async fn ready(store: &Store) -> Meaning {
    let meaning = Meaning::start(Some(&model_dir()), store.clone(), CancellationToken::new());
    let mut status = meaning.watch();
    let filled = tokio::time::timeout(
        Duration::from_secs(120),
        status.wait_for(|s| {
            s.state == MeaningState::Off
                || (s.state == MeaningState::Ready && s.embedded == s.total)
        }),
    )
    .await
    .expect("the vectors were filled in in time")
    .expect("the status is kept")
    .clone();
    assert_eq!(filled.state, MeaningState::Ready, "{filled:?}");
    meaning
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[tokio::test(flavor = "multi_thread")]
async fn vectors_agree_with_the_published_figures() {
    let store = Store::open_in_memory().unwrap();
    let meaning = Meaning::start(Some(&model_dir()), store, CancellationToken::new());
    let v = meaning
        .embed(vec![
            "A man is eating food.".into(),
            "A man is eating a piece of bread.".into(),
            "The girl is carrying a baby.".into(),
        ])
        .await
        .unwrap();
    assert_eq!(v[0].len(), imprint::meaning::DIMENSIONS);
    let norm: f32 = cosine(&v[0], &v[0]);
    assert!((norm - 1.0).abs() < 1e-4, "unit length, got {norm}");
    let near = cosine(&v[0], &v[1]);
    let far = cosine(&v[0], &v[2]);
    assert!((near - 0.755).abs() < 0.01, "published 0.755, got {near}");
    assert!((far - -0.105).abs() < 0.01, "published -0.105, got {far}");
}

const MEMORIES: [&str; 9] = [
    "Painter (Dobrev Decor) agreed £2,350 for hall, stairs and landing",
    "Plumber Gary quoted £180 to replace the boiler valve",
    "Paint colour for the hall: Farrow & Ball Elephant's Breath",
    "Window cleaner charges £18 every four weeks",
    "Yaris takes 0W-20 engine oil",
    "Golf needs 5W-30 oil, service due in May",
    "Solicitor for the house purchase: Hannah Mills at Greaves & Co",
    "Climbing gym membership CLB-00482-7",
    "Trip to Australia: flights to Sydney booked for 3 March",
];

async fn seeded() -> Store {
    let store = Store::open_in_memory().unwrap();
    for content in MEMORIES {
        store
            .add_memory(NewMemory {
                content: content.into(),
                ..NewMemory::default()
            })
            .await
            .unwrap();
    }
    store
}

async fn best(meaning: &Meaning, store: &Store, request: &str) -> (String, f32) {
    let findings = meaning
        .search(
            store,
            MemoryQuery {
                query: request.into(),
                ..MemoryQuery::default()
            },
        )
        .await
        .unwrap();
    assert!(findings.by_meaning, "searched by meaning");
    let top = findings.found.first().expect("something found");
    println!(
        "{request:?} -> {:?} ({:?}); best similarity {:?}",
        top.memory.content,
        top.similarity,
        findings.best_similarity()
    );
    (top.memory.content.clone(), top.similarity.unwrap_or(0.0))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_memory_is_found_by_what_it_means_among_near_misses() {
    let store = seeded().await;
    let meaning = ready(&store).await;
    for (request, expected) in [
        ("how much are we paying the painter in the end?", MEMORIES[0]),
        (
            "Would you be so kind as to tell me the name of the solicitor who handled our house purchase?",
            MEMORIES[6],
        ),
        ("wich oil does the yaris take agian?", MEMORIES[4]),
        ("what does the window guy cost", MEMORIES[3]),
    ] {
        let (found, similarity) = best(&meaning, &store, request).await;
        assert_eq!(found, expected, "for {request:?}");
        assert!(
            similarity >= imprint::meaning::search::FOUND,
            "{request:?}: {similarity}"
        );
    }
    // An exact code counts by its words.
    let (found, _) = best(&meaning, &store, "CLB-00482-7").await;
    assert_eq!(found, MEMORIES[7]);
    // A general question shares a word with a memory, and some meaning
    // ("the capital of Australia" against the Australia trip), but less
    // than an answer does, and the examples read it as general.
    let question = "What is the capital of Australia?";
    let findings = meaning
        .search(
            &store,
            MemoryQuery {
                query: question.into(),
                ..MemoryQuery::default()
            },
        )
        .await
        .unwrap();
    let best = findings.best_similarity().unwrap_or(0.0);
    let route = meaning.route(&findings.vector.unwrap()).unwrap();
    println!("{question:?}: best similarity {best}, {route:?}");
    assert!(best < imprint::meaning::search::STRONG, "{best}");
    assert_eq!(route.kind, Routed::General);
    assert!(route.is_clear(), "{route:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_edited_memory_is_found_by_its_new_words() {
    let store = seeded().await;
    let meaning = ready(&store).await;
    let painter = store
        .search_memories(MemoryQuery {
            query: "Dobrev".into(),
            ..MemoryQuery::default()
        })
        .await
        .unwrap()[0]
        .id;
    let mut status = meaning.watch();
    status.borrow_and_update();
    store
        .update_memory(
            painter,
            imprint::store::MemoryChange {
                content: Some("Tiler Bogdan charges £40 per square metre for the bathroom".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    tokio::time::timeout(
        Duration::from_secs(60),
        status.wait_for(|s| s.state == MeaningState::Ready && s.embedded == s.total),
    )
    .await
    .expect("refilled in time")
    .unwrap();
    let (found, _) = best(&meaning, &store, "what does the bathroom tiling cost").await;
    assert!(found.starts_with("Tiler Bogdan"), "{found}");
}

#[tokio::test(flavor = "multi_thread")]
async fn requests_are_routed_by_the_shipped_examples() {
    let store = Store::open_in_memory().unwrap();
    let meaning = ready(&store).await;
    let mut wrong = Vec::new();
    for (request, kind) in [
        (
            "fyi my membership number at the climbing gym is CLB-00482-7",
            Routed::Save,
        ),
        ("nudge me at half six to put the bins out", Routed::Remind),
        ("what's the code for the side gate again", Routed::Read),
        (
            "Which is the biggest planet in our solar system?",
            Routed::General,
        ),
        ("morning!", Routed::SmallTalk),
        ("ring the garage and book the car in", Routed::CannotDo),
        ("what projects am I running", Routed::Projects),
    ] {
        let vector = meaning.embed_one(request).await.unwrap();
        let route = meaning.route(&vector).expect("the examples are embedded");
        println!("{request:?} -> {route:?}");
        if route.kind != kind {
            wrong.push((request, route));
        }
    }
    assert!(wrong.is_empty(), "routed wrong: {wrong:?}");
}

/// Replies typed while Imprint's question waits, with the question's
/// options, none of them in the shipped examples: true for a new request.
const REPLIES: [(&str, &[&str], bool); 20] = [
    (
        "the one at the vet",
        &[
            "Pickle's booster at the vet, 9 March",
            "Pickle's flea tablets",
        ],
        false,
    ),
    (
        "Priya's",
        &["Priya Nair, apprentice", "Priya Lund, piano teacher"],
        false,
    ),
    (
        "hmm the big one I think",
        &["Big kiln booking 15 Dec", "Small kiln booking 19 Dec"],
        false,
    ),
    ("4.30", &["9am", "12pm", "6pm"], false),
    ("weds evening", &["9am", "12pm", "6pm"], false),
    ("the first, thanks", &["Home Wi-Fi", "Studio Wi-Fi"], false),
    (
        "oh the insurance one",
        &["Car insurance renews 2 March", "MOT due 14 Feb"],
        false,
    ),
    (
        "not that, the passport renewal",
        &[
            "Passport renewal appointment, 3 Feb",
            "Driving licence renewal due June",
        ],
        false,
    ),
    (
        "for the Oakfield project",
        &["Oakfield extension", "Mill Lane loft"],
        false,
    ),
    (
        "the one I mentioned this morning",
        &["Quote from Hollis, £4,200", "Quote from Barker, £3,900"],
        false,
    ),
    (
        "when is the big kiln booked?",
        &["Big kiln booking 15 Dec", "Small kiln booking 19 Dec"],
        false,
    ),
    (
        "what's the door code?",
        &["Big kiln booking 15 Dec", "Small kiln booking 19 Dec"],
        true,
    ),
    (
        "remind me to call the bank at 5",
        &["Priya Nair, apprentice", "Priya Lund, piano teacher"],
        true,
    ),
    (
        "save that the plumber comes thursday",
        &["Home Wi-Fi", "Studio Wi-Fi"],
        true,
    ),
    (
        "how tall is the Eiffel tower",
        &["Oakfield extension", "Mill Lane loft"],
        true,
    ),
    (
        "when is Isla's recital?",
        &["Car insurance renews 2 March", "MOT due 14 Feb"],
        true,
    ),
    (
        "what did I pay for the tyres",
        &["Priya Nair, apprentice", "Priya Lund, piano teacher"],
        true,
    ),
    (
        "what projects do I have",
        &["Home Wi-Fi", "Studio Wi-Fi"],
        true,
    ),
    (
        "who's our vet again?",
        &["Big kiln booking 15 Dec", "Small kiln booking 19 Dec"],
        true,
    ),
    (
        "btw the van's MOT is due in May",
        &["Quote from Hollis, £4,200", "Quote from Barker, £3,900"],
        true,
    ),
];

#[tokio::test(flavor = "multi_thread")]
async fn a_reply_to_a_question_is_told_from_a_new_request() {
    let store = Store::open_in_memory().unwrap();
    let meaning = ready(&store).await;
    let mut wrong = Vec::new();
    for (reply, options, new_request) in REPLIES {
        let options: Vec<String> = options.iter().map(|o| o.to_string()).collect();
        let judged = meaning.is_new_request(reply, &options).await;
        if judged != Some(new_request) {
            wrong.push((reply, judged));
        }
    }
    assert!(wrong.is_empty(), "judged wrong: {wrong:?}");
}
