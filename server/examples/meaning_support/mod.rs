//! What the evaluations of routing share: the embedding model from the
//! cache, texts embedded in batches, and the shipped labelled examples
//! with their vectors.

use imprint::meaning::minilm::MiniLm;
use imprint::meaning::route::{parse_examples, Routed, EXAMPLES};

/// The cached all-MiniLM-L6-v2, or a panic saying how to set it up.
pub fn model() -> MiniLm {
    let dir = imprint::meaning::cached_model_dir().expect("a cache directory");
    MiniLm::load(&dir).expect("the embedding model (scripts/embedding-model.sh ensure)")
}

/// `texts` embedded, 32 at a time.
pub fn embed(model: &MiniLm, texts: &[String]) -> Vec<Vec<f32>> {
    texts
        .chunks(32)
        .flat_map(|chunk| {
            let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
            model.embed(&refs).expect("embedded")
        })
        .collect()
}

/// The shipped examples' kinds with their vectors, in file order.
pub fn labelled_examples(model: &MiniLm) -> Vec<(Routed, Vec<f32>)> {
    let examples = parse_examples(EXAMPLES).expect("the examples parse");
    let texts: Vec<String> = examples.iter().map(|(_, r)| r.to_string()).collect();
    examples
        .iter()
        .map(|(k, _)| *k)
        .zip(embed(model, &texts))
        .collect()
}
