//! all-MiniLM-L6-v2 on the CPU: candle's BERT layers, the model's own
//! WordPiece tokenizer, mean pooling over the tokens and L2 normalising,
//! as sentence-transformers does. A text is cut at [`MAX_TOKENS`] tokens
//! (the model was trained on at most 256).

use std::path::Path;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::DIMENSIONS;

/// Tokens read of one text at most.
pub const MAX_TOKENS: usize = 256;

/// The files the model's folder must hold.
pub const FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

/// Why the model could not be loaded or run.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("cannot read {file}: {reason}")]
    File { file: String, reason: String },
    #[error("the model's config says {0} dimensions; Imprint stores {DIMENSIONS}")]
    Dimensions(usize),
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    #[error("model: {0}")]
    Candle(#[from] candle_core::Error),
}

/// The first of [`FILES`] missing from `dir`, if any.
pub fn missing_file(dir: &Path) -> Option<&'static str> {
    FILES.into_iter().find(|f| !dir.join(f).is_file())
}

/// The loaded model. Not shared between threads: one owner runs it.
pub struct MiniLm {
    model: BertModel,
    tokenizer: Tokenizer,
}

impl MiniLm {
    /// Loads the weights, config and tokenizer from `dir`.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        let read = |file: &str| {
            std::fs::read_to_string(dir.join(file)).map_err(|e| EmbedError::File {
                file: file.into(),
                reason: e.to_string(),
            })
        };
        let config: Config =
            serde_json::from_str(&read("config.json")?).map_err(|e| EmbedError::File {
                file: "config.json".into(),
                reason: e.to_string(),
            })?;
        let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
            .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        // The file pads every text to 128 tokens; a batch pads to its
        // longest instead, and the mask keeps padding out of the mean.
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            ..PaddingParams::default()
        }));
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..TruncationParams::default()
            }))
            .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        let weights = dir.join("model.safetensors");
        // SAFETY: the file is ours (set up and checked by
        // scripts/embedding-model.sh) and not written while Imprint runs;
        // candle copies the tensors out of the mapping.
        let vb =
            unsafe { VarBuilder::from_mmaped_safetensors(&[weights], DType::F32, &Device::Cpu) }?;
        let model = BertModel::load(vb, &config)?;
        let probe = Self { model, tokenizer };
        let dims = probe.embed(&["dimensions"])?[0].len();
        if dims != DIMENSIONS {
            return Err(EmbedError::Dimensions(dims));
        }
        Ok(probe)
    }

    /// One unit vector per text, in order.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        let rows = encodings.len();
        let width = encodings[0].get_ids().len();
        let flat = |get: fn(&tokenizers::Encoding) -> &[u32]| -> Vec<u32> {
            encodings.iter().flat_map(|e| get(e).to_vec()).collect()
        };
        let ids = Tensor::from_vec(
            flat(tokenizers::Encoding::get_ids),
            (rows, width),
            &Device::Cpu,
        )?;
        let mask = Tensor::from_vec(
            flat(tokenizers::Encoding::get_attention_mask),
            (rows, width),
            &Device::Cpu,
        )?;
        let types = ids.zeros_like()?;
        let hidden = self.model.forward(&ids, &types, Some(&mask))?;
        // Mean over the real tokens only.
        let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
        let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
        let counts = mask.sum(1)?;
        let mean = summed.broadcast_div(&counts)?;
        let norms = mean.sqr()?.sum_keepdim(1)?.sqrt()?;
        let unit = mean.broadcast_div(&norms)?;
        Ok(unit.to_vec2::<f32>()?)
    }
}
