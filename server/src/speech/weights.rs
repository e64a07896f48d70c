//! CTranslate2's Whisper tensors under the names candle's Whisper reads.
//!
//! CTranslate2 fuses the self-attention's q, k and v into one
//! `self_attention/linear_0` (3·d rows) and the cross-attention's k and v
//! into `attention/linear_1` (2·d rows); they are split here. Keys carry no
//! bias in Whisper (CTranslate2 stores zeros), so theirs are dropped. Layer
//! norms' `gamma`/`beta` become `weight`/`bias`. The model's sizes are read
//! from the tensors' shapes and the head-count scalars.

use std::collections::HashMap;

use candle_core::{DType, Device, Tensor};
use candle_transformers::models::whisper::Config;

use super::ct2::Ct2Model;

/// Why the tensors do not make a Whisper.
#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    #[error("the model file has no tensor {0}")]
    Missing(String),
    #[error("tensor {name} has shape {dims:?}; {expected}")]
    Shape {
        name: String,
        dims: Vec<usize>,
        expected: String,
    },
    #[error("the model file has no head count {0}")]
    Heads(String),
    #[error("tensor {name}: {source}")]
    Candle {
        name: String,
        source: candle_core::Error,
    },
}

/// The sizes of the model, as candle's [`Config`] wants them.
pub fn config(ct: &Ct2Model) -> Result<Config, WeightsError> {
    let conv1 = dims(ct, "encoder/conv1/weight", 3)?;
    let embeddings = dims(ct, "decoder/embeddings/weight", 2)?;
    let positions = dims(ct, "decoder/position_encodings/encodings", 2)?;
    let audio_positions = ct
        .get("encoder/position_encodings/encodings")
        .map(|t| t.dims[0])
        .unwrap_or(1500);
    let heads = |side: &str| {
        let name = format!("{side}/num_heads");
        match ct.scalars.get(&name) {
            Some(&n) if n > 0 => Ok(n as usize),
            _ => Err(WeightsError::Heads(name)),
        }
    };
    let layers = |side: &str| {
        (0..)
            .take_while(|i| {
                ct.get(&format!("{side}/layer_{i}/ffn/linear_0/weight"))
                    .is_some()
            })
            .count()
    };
    let d_model = conv1[0];
    if embeddings[1] != d_model || positions[1] != d_model {
        return Err(WeightsError::Shape {
            name: "decoder/embeddings/weight".into(),
            dims: embeddings,
            expected: format!("{d_model} columns, as the encoder"),
        });
    }
    Ok(Config {
        num_mel_bins: conv1[1],
        max_source_positions: audio_positions,
        d_model,
        encoder_attention_heads: heads("encoder")?,
        encoder_layers: layers("encoder"),
        vocab_size: embeddings[0],
        max_target_positions: positions[0],
        decoder_attention_heads: heads("decoder")?,
        decoder_layers: layers("decoder"),
        suppress_tokens: Vec::new(),
    })
}

fn dims(ct: &Ct2Model, name: &str, rank: usize) -> Result<Vec<usize>, WeightsError> {
    let t = ct
        .get(name)
        .ok_or_else(|| WeightsError::Missing(name.into()))?;
    if t.dims.len() != rank || t.dims.contains(&0) {
        return Err(WeightsError::Shape {
            name: name.into(),
            dims: t.dims.clone(),
            expected: format!("rank {rank}"),
        });
    }
    Ok(t.dims.clone())
}

/// Every tensor candle's `Whisper::load` reads, in float32 on the CPU.
pub fn candle_tensors(
    ct: &Ct2Model,
    config: &Config,
) -> Result<HashMap<String, Tensor>, WeightsError> {
    let d = config.d_model;
    let mut out = Names {
        ct,
        d,
        tensors: HashMap::new(),
    };
    for (from, to) in [
        ("encoder/conv1/weight", "model.encoder.conv1.weight"),
        ("encoder/conv1/bias", "model.encoder.conv1.bias"),
        ("encoder/conv2/weight", "model.encoder.conv2.weight"),
        ("encoder/conv2/bias", "model.encoder.conv2.bias"),
        (
            "decoder/embeddings/weight",
            "model.decoder.embed_tokens.weight",
        ),
        (
            "decoder/position_encodings/encodings",
            "model.decoder.embed_positions.weight",
        ),
    ] {
        out.copy(from, to)?;
    }
    out.norm("encoder/layer_norm", "model.encoder.layer_norm")?;
    out.norm("decoder/layer_norm", "model.decoder.layer_norm")?;
    for (side, layers) in [
        ("encoder", config.encoder_layers),
        ("decoder", config.decoder_layers),
    ] {
        for i in 0..layers {
            let c = format!("{side}/layer_{i}");
            let h = format!("model.{side}.layers.{i}");
            out.norm(
                &format!("{c}/self_attention/layer_norm"),
                &format!("{h}.self_attn_layer_norm"),
            )?;
            out.split(
                &format!("{c}/self_attention/linear_0"),
                &[
                    (&format!("{h}.self_attn.q_proj"), true),
                    (&format!("{h}.self_attn.k_proj"), false),
                    (&format!("{h}.self_attn.v_proj"), true),
                ],
            )?;
            out.linear(
                &format!("{c}/self_attention/linear_1"),
                &format!("{h}.self_attn.out_proj"),
            )?;
            out.norm(
                &format!("{c}/ffn/layer_norm"),
                &format!("{h}.final_layer_norm"),
            )?;
            out.linear(&format!("{c}/ffn/linear_0"), &format!("{h}.fc1"))?;
            out.linear(&format!("{c}/ffn/linear_1"), &format!("{h}.fc2"))?;
            if side == "decoder" {
                out.norm(
                    &format!("{c}/attention/layer_norm"),
                    &format!("{h}.encoder_attn_layer_norm"),
                )?;
                out.linear(
                    &format!("{c}/attention/linear_0"),
                    &format!("{h}.encoder_attn.q_proj"),
                )?;
                out.split(
                    &format!("{c}/attention/linear_1"),
                    &[
                        (&format!("{h}.encoder_attn.k_proj"), false),
                        (&format!("{h}.encoder_attn.v_proj"), true),
                    ],
                )?;
                out.linear(
                    &format!("{c}/attention/linear_2"),
                    &format!("{h}.encoder_attn.out_proj"),
                )?;
            }
        }
    }
    Ok(out.tensors)
}

/// The renaming's output, filled one CTranslate2 name at a time.
struct Names<'a> {
    ct: &'a Ct2Model,
    d: usize,
    tensors: HashMap<String, Tensor>,
}

impl Names<'_> {
    fn tensor(&self, name: &str) -> Result<Tensor, WeightsError> {
        let raw = self
            .ct
            .get(name)
            .ok_or_else(|| WeightsError::Missing(name.into()))?;
        Tensor::from_slice(&raw.values, raw.dims.as_slice(), &Device::Cpu)
            .and_then(|t| t.to_dtype(DType::F32))
            .map_err(|source| WeightsError::Candle {
                name: name.into(),
                source,
            })
    }

    fn copy(&mut self, from: &str, to: &str) -> Result<(), WeightsError> {
        let t = self.tensor(from)?;
        self.tensors.insert(to.into(), t);
        Ok(())
    }

    fn norm(&mut self, from: &str, to: &str) -> Result<(), WeightsError> {
        self.copy(&format!("{from}/gamma"), &format!("{to}.weight"))?;
        self.copy(&format!("{from}/beta"), &format!("{to}.bias"))
    }

    fn linear(&mut self, from: &str, to: &str) -> Result<(), WeightsError> {
        self.copy(&format!("{from}/weight"), &format!("{to}.weight"))?;
        self.copy(&format!("{from}/bias"), &format!("{to}.bias"))
    }

    /// A fused projection of `parts.len()` × d rows into its parts, in
    /// order; a part's flag says whether it keeps its bias.
    fn split(&mut self, from: &str, parts: &[(&str, bool)]) -> Result<(), WeightsError> {
        let weight_name = format!("{from}/weight");
        let weight = self.tensor(&weight_name)?;
        let bias = self.tensor(&format!("{from}/bias"))?;
        let rows = parts.len() * self.d;
        if weight.dims() != [rows, self.d] || bias.dims() != [rows] {
            return Err(WeightsError::Shape {
                name: weight_name,
                dims: weight.dims().to_vec(),
                expected: format!("[{rows}, {}] with a bias of {rows}", self.d),
            });
        }
        for (j, (to, keeps_bias)) in parts.iter().enumerate() {
            let part = |t: &Tensor| {
                t.narrow(0, j * self.d, self.d)
                    .map_err(|source| WeightsError::Candle {
                        name: from.into(),
                        source,
                    })
            };
            self.tensors.insert(format!("{to}.weight"), part(&weight)?);
            if *keeps_bias {
                self.tensors.insert(format!("{to}.bias"), part(&bias)?);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::speech::ct2::tests::Writer;
    use crate::speech::ct2::WHISPER_SPEC;

    /// A one-layer Whisper of width 2 whose every value says where it came from.
    fn tiny_model() -> Ct2Model {
        let d = 2;
        let mut tensors: Vec<(String, Vec<usize>)> = vec![
            ("encoder/conv1/weight".into(), vec![d, 3, 3]),
            ("encoder/conv1/bias".into(), vec![d]),
            ("encoder/conv2/weight".into(), vec![d, d, 3]),
            ("encoder/conv2/bias".into(), vec![d]),
            ("encoder/position_encodings/encodings".into(), vec![8, d]),
            ("decoder/embeddings/weight".into(), vec![5, d]),
            ("decoder/position_encodings/encodings".into(), vec![4, d]),
        ];
        let linear = |t: &mut Vec<(String, Vec<usize>)>, name: String, rows: usize, cols| {
            t.push((format!("{name}/weight"), vec![rows, cols]));
            t.push((format!("{name}/bias"), vec![rows]));
        };
        let norm = |t: &mut Vec<(String, Vec<usize>)>, name: String| {
            t.push((format!("{name}/gamma"), vec![d]));
            t.push((format!("{name}/beta"), vec![d]));
        };
        for side in ["encoder", "decoder"] {
            norm(&mut tensors, format!("{side}/layer_norm"));
            let c = format!("{side}/layer_0");
            norm(&mut tensors, format!("{c}/self_attention/layer_norm"));
            linear(
                &mut tensors,
                format!("{c}/self_attention/linear_0"),
                3 * d,
                d,
            );
            linear(&mut tensors, format!("{c}/self_attention/linear_1"), d, d);
            norm(&mut tensors, format!("{c}/ffn/layer_norm"));
            linear(&mut tensors, format!("{c}/ffn/linear_0"), 4 * d, d);
            linear(&mut tensors, format!("{c}/ffn/linear_1"), d, 4 * d);
            if side == "decoder" {
                norm(&mut tensors, format!("{c}/attention/layer_norm"));
                linear(&mut tensors, format!("{c}/attention/linear_0"), d, d);
                linear(&mut tensors, format!("{c}/attention/linear_1"), 2 * d, d);
                linear(&mut tensors, format!("{c}/attention/linear_2"), d, d);
            }
        }
        let mut w = Writer::header(6, WHISPER_SPEC, tensors.len() as u32 + 2);
        for (name, dims) in &tensors {
            // Row r of a tensor holds r·10 + column: a split shows its rows.
            let cols: usize = dims[1..].iter().product();
            let values: Vec<f32> = (0..dims[0] * cols)
                .map(|i| ((i / cols) * 10 + i % cols) as f32)
                .collect();
            w.f16(name, dims, &values);
        }
        w.scalar("encoder/num_heads", 1);
        w.scalar("decoder/num_heads", 1);
        w.u32(0);
        Ct2Model::parse(&w.0).unwrap()
    }

    fn rows(t: &Tensor) -> Vec<Vec<f32>> {
        t.to_vec2().unwrap()
    }

    #[test]
    fn sizes_come_from_the_shapes_and_head_counts() {
        let config = config(&tiny_model()).unwrap();
        assert_eq!(config.d_model, 2);
        assert_eq!(config.num_mel_bins, 3);
        assert_eq!(config.vocab_size, 5);
        assert_eq!(config.max_target_positions, 4);
        assert_eq!(config.max_source_positions, 8);
        assert_eq!((config.encoder_layers, config.decoder_layers), (1, 1));
        assert_eq!(config.encoder_attention_heads, 1);
    }

    #[test]
    fn fused_q_k_v_split_into_candles_names_and_keys_lose_their_bias() {
        let ct = tiny_model();
        let t = candle_tensors(&ct, &config(&ct).unwrap()).unwrap();
        let at = "model.encoder.layers.0.self_attn";
        assert_eq!(
            rows(&t[&format!("{at}.q_proj.weight")]),
            [[0., 1.], [10., 11.]]
        );
        assert_eq!(
            rows(&t[&format!("{at}.k_proj.weight")]),
            [[20., 21.], [30., 31.]]
        );
        assert_eq!(
            rows(&t[&format!("{at}.v_proj.weight")]),
            [[40., 41.], [50., 51.]]
        );
        assert_eq!(
            t[&format!("{at}.v_proj.bias")].to_vec1::<f32>().unwrap(),
            [40., 50.]
        );
        assert!(!t.contains_key(&format!("{at}.k_proj.bias")));
        let cross = "model.decoder.layers.0.encoder_attn";
        assert_eq!(
            rows(&t[&format!("{cross}.k_proj.weight")]),
            [[0., 1.], [10., 11.]]
        );
        assert_eq!(
            rows(&t[&format!("{cross}.v_proj.weight")]),
            [[20., 21.], [30., 31.]]
        );
        assert!(t.contains_key("model.decoder.layers.0.encoder_attn_layer_norm.weight"));
        assert!(t.contains_key("model.encoder.layers.0.final_layer_norm.bias"));
        assert!(t.contains_key("model.decoder.embed_positions.weight"));
    }

    #[test]
    fn a_missing_or_misshapen_tensor_is_named() {
        let mut ct = tiny_model();
        let config = config(&ct).unwrap();
        ct.tensors.remove("decoder/layer_0/ffn/linear_1/bias");
        let error = candle_tensors(&ct, &config).unwrap_err().to_string();
        assert!(
            error.contains("decoder/layer_0/ffn/linear_1/bias"),
            "{error}"
        );
        let mut ct = tiny_model();
        let fused = ct
            .tensors
            .get_mut("encoder/layer_0/self_attention/linear_0/weight")
            .unwrap();
        fused.dims = vec![2, 6];
        let error = candle_tensors(&ct, &config).unwrap_err().to_string();
        assert!(error.contains("self_attention/linear_0"), "{error}");
    }
}
