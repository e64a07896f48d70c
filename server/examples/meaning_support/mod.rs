//! What the evaluations of routing and finding share: the embedding
//! model from the cache, texts embedded in batches, the shipped labelled
//! examples with their vectors, and an evaluation set's file.

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

/// An evaluation set's `cases.json`: its name, its memories' texts and
/// its cases.
pub struct EvalSet {
    pub name: String,
    pub memories: Vec<String>,
    pub cases: Vec<serde_json::Value>,
}

/// The set at `path` (a `cases.json`), or a panic naming what is wrong.
pub fn eval_set(path: &str) -> EvalSet {
    let text = std::fs::read_to_string(path).expect("a cases file");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let memories = doc["memories"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["content"].as_str().map(str::to_string))
        .collect();
    let name = path
        .trim_end_matches("/cases.json")
        .rsplit('/')
        .next()
        .unwrap_or(path)
        .to_string();
    let cases = doc["cases"].as_array().cloned().unwrap_or_default();
    EvalSet {
        name,
        memories,
        cases,
    }
}
