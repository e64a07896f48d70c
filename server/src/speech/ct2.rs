//! CTranslate2's model file (`model.bin`, format version 5 or 6), read
//! without CTranslate2: the named float16 tensors of a `WhisperSpec`.
//!
//! Layout, all little-endian: `u32` version; the spec's name (`u16` length
//! counting its NUL, then the bytes); `u32` revision; `u32` variable count;
//! per variable its name, `u8` rank, `u32` per dimension, `u8` type, `u32`
//! byte count and the bytes; then `u32` alias count and `(alias, target)`
//! name pairs. Float16 tensors and integer scalars (head counts, flags) are
//! kept; anything else is skipped.

use std::collections::HashMap;
use std::path::Path;

/// The spec a Whisper export is written with.
pub const WHISPER_SPEC: &str = "WhisperSpec";
/// CTranslate2's type codes: int8, int16, int32 and float16.
const TYPE_INT8: u8 = 1;
const TYPE_INT16: u8 = 2;
const TYPE_INT32: u8 = 3;
const TYPE_FLOAT16: u8 = 4;
/// Rank past which a "tensor" is certainly garbage (Whisper's are ≤ 3).
const MAX_RANK: usize = 8;

/// Why a model file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum Ct2Error {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("the model file ends early, inside {what}")]
    Truncated { what: String },
    #[error("model file version {0} is not supported (5 or 6 is)")]
    Version(u32),
    #[error("the model file holds a {0}, not a {WHISPER_SPEC}")]
    Spec(String),
    #[error("a name in the model file is not UTF-8")]
    Name,
    #[error("tensor {name}: {reason}")]
    Tensor { name: String, reason: String },
}

/// A float16 tensor as stored: its shape and its values.
#[derive(Clone, Debug, PartialEq)]
pub struct RawTensor {
    pub dims: Vec<usize>,
    pub values: Vec<half::f16>,
}

/// The tensors of a model file by name, aliases resolved to copies' names.
#[derive(Debug, Default)]
pub struct Ct2Model {
    pub spec: String,
    pub tensors: HashMap<String, RawTensor>,
    /// Integer scalars (e.g. `encoder/num_heads`).
    pub scalars: HashMap<String, i64>,
    /// alias → the name it stands for (e.g. the decoder's output
    /// projection is its token embedding).
    pub aliases: HashMap<String, String>,
}

impl Ct2Model {
    pub fn read(path: &Path) -> Result<Self, Ct2Error> {
        let bytes = std::fs::read(path).map_err(|source| Ct2Error::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse(&bytes)
    }

    /// Reads a whole file's bytes; never panics on malformed input.
    pub fn parse(bytes: &[u8]) -> Result<Self, Ct2Error> {
        let mut r = Reader(bytes);
        let version = r.u32("the version")?;
        if !(5..=6).contains(&version) {
            return Err(Ct2Error::Version(version));
        }
        let spec = r.string("the spec name")?;
        if spec != WHISPER_SPEC {
            return Err(Ct2Error::Spec(spec));
        }
        let _revision = r.u32("the spec revision")?;
        let count = r.u32("the variable count")?;
        let mut tensors = HashMap::new();
        let mut scalars = HashMap::new();
        for index in 0..count {
            let name = r.string(&format!("variable {index}'s name"))?;
            let at = |what: &str| format!("{name}'s {what}");
            let rank = usize::from(r.u8(&at("rank"))?);
            if rank > MAX_RANK {
                return Err(Ct2Error::Tensor {
                    name,
                    reason: format!("rank {rank}"),
                });
            }
            let mut dims = Vec::with_capacity(rank);
            for _ in 0..rank {
                dims.push(r.u32(&at("shape"))? as usize);
            }
            let kind = r.u8(&at("type"))?;
            let size = r.u32(&at("size"))? as usize;
            let data = r.take(size, &at("data"))?;
            if rank == 0 {
                let value = match (kind, data) {
                    (TYPE_INT8, [a]) => i64::from(*a as i8),
                    (TYPE_INT16, [a, b]) => i64::from(i16::from_le_bytes([*a, *b])),
                    (TYPE_INT32, [a, b, c, d]) => i64::from(i32::from_le_bytes([*a, *b, *c, *d])),
                    _ => continue,
                };
                scalars.insert(name, value);
                continue;
            }
            if kind != TYPE_FLOAT16 {
                continue;
            }
            let count = dims
                .iter()
                .try_fold(1usize, |n, d| n.checked_mul(*d))
                .filter(|n| n.checked_mul(2) == Some(size));
            if count.is_none() {
                return Err(Ct2Error::Tensor {
                    name,
                    reason: format!("shape {dims:?} does not fit {size} bytes of float16"),
                });
            }
            let values = data
                .chunks_exact(2)
                .map(|b| half::f16::from_le_bytes([b[0], b[1]]))
                .collect();
            tensors.insert(name, RawTensor { dims, values });
        }
        let mut aliases = HashMap::new();
        // Version 5 files may end here; an alias table, when present, is whole.
        if !r.0.is_empty() {
            let count = r.u32("the alias count")?;
            for index in 0..count {
                let alias = r.string(&format!("alias {index}"))?;
                let target = r.string(&format!("alias {index}'s target"))?;
                aliases.insert(alias, target);
            }
        }
        Ok(Self {
            spec,
            tensors,
            scalars,
            aliases,
        })
    }

    /// The tensor called `name`, directly or through an alias.
    pub fn get(&self, name: &str) -> Option<&RawTensor> {
        self.tensors.get(name).or_else(|| {
            self.aliases
                .get(name)
                .and_then(|target| self.tensors.get(target))
        })
    }
}

/// A cursor over the file's bytes: every read says what it was reading.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], Ct2Error> {
        if self.0.len() < n {
            return Err(Ct2Error::Truncated { what: what.into() });
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn u8(&mut self, what: &str) -> Result<u8, Ct2Error> {
        Ok(self.take(1, what)?[0])
    }

    fn u16(&mut self, what: &str) -> Result<u16, Ct2Error> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self, what: &str) -> Result<u32, Ct2Error> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A `u16` length (counting a trailing NUL), then the bytes.
    fn string(&mut self, what: &str) -> Result<String, Ct2Error> {
        let n = usize::from(self.u16(what)?);
        let bytes = self.take(n, what)?;
        let text = bytes.strip_suffix(&[0]).unwrap_or(bytes);
        String::from_utf8(text.to_vec()).map_err(|_| Ct2Error::Name)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Writes a model file the way CTranslate2 does.
    #[derive(Default)]
    pub(crate) struct Writer(pub Vec<u8>);

    impl Writer {
        pub fn header(version: u32, spec: &str, variables: u32) -> Self {
            let mut w = Self::default();
            w.u32(version);
            w.string(spec);
            w.u32(1);
            w.u32(variables);
            w
        }
        pub fn u32(&mut self, v: u32) {
            self.0.extend_from_slice(&v.to_le_bytes());
        }
        pub fn string(&mut self, s: &str) {
            self.0
                .extend_from_slice(&((s.len() + 1) as u16).to_le_bytes());
            self.0.extend_from_slice(s.as_bytes());
            self.0.push(0);
        }
        pub fn f16(&mut self, name: &str, dims: &[usize], values: &[f32]) {
            self.string(name);
            self.0.push(dims.len() as u8);
            for d in dims {
                self.u32(*d as u32);
            }
            self.0.push(TYPE_FLOAT16);
            self.u32((values.len() * 2) as u32);
            for v in values {
                self.0
                    .extend_from_slice(&half::f16::from_f32(*v).to_le_bytes());
            }
        }
        pub fn scalar(&mut self, name: &str, value: i32) {
            self.string(name);
            self.0.push(0);
            self.0.push(TYPE_INT32);
            self.u32(4);
            self.0.extend_from_slice(&value.to_le_bytes());
        }
    }

    fn small_file() -> Vec<u8> {
        let mut w = Writer::header(6, WHISPER_SPEC, 3);
        w.f16(
            "decoder/embeddings/weight",
            &[2, 3],
            &[1., 2., 3., 4., 5., 6.],
        );
        w.scalar("num_heads", 6);
        w.f16("encoder/layer_norm/gamma", &[2], &[0.5, -1.0]);
        w.u32(1);
        w.string("decoder/projection/weight");
        w.string("decoder/embeddings/weight");
        w.0
    }

    #[test]
    fn a_small_file_reads_its_tensors_and_aliases() {
        let model = Ct2Model::parse(&small_file()).unwrap();
        assert_eq!(model.spec, WHISPER_SPEC);
        assert_eq!(model.tensors.len(), 2, "the scalar is not a tensor");
        assert_eq!(model.scalars["num_heads"], 6);
        let gamma = &model.tensors["encoder/layer_norm/gamma"];
        assert_eq!(gamma.dims, vec![2]);
        assert_eq!(
            gamma.values.iter().map(|v| v.to_f32()).collect::<Vec<_>>(),
            vec![0.5, -1.0]
        );
        let projection = model.get("decoder/projection/weight").unwrap();
        assert_eq!(projection.dims, vec![2, 3]);
        assert_eq!(projection.values[5].to_f32(), 6.0);
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let whole = small_file();
        // u32 count, then two names of 25 bytes with their u16 length and NUL.
        let aliases_at = whole.len() - (4 + 2 * (2 + 26));
        for len in 0..whole.len() {
            match Ct2Model::parse(&whole[..len]) {
                Err(Ct2Error::Truncated { what }) => assert!(!what.is_empty()),
                // Cut exactly before the alias table: a version-5 style end.
                Ok(model) => assert!(model.aliases.is_empty() && len == aliases_at),
                Err(other) => panic!("at {len}: {other}"),
            }
        }
        let error = Ct2Model::parse(&whole[..20]).unwrap_err().to_string();
        assert!(error.contains("ends early"), "{error}");
    }

    #[test]
    fn a_wrong_version_or_spec_is_refused_by_name() {
        let mut bytes = small_file();
        bytes[..4].copy_from_slice(&7u32.to_le_bytes());
        let error = Ct2Model::parse(&bytes).unwrap_err();
        assert!(matches!(error, Ct2Error::Version(7)), "{error}");
        assert!(error.to_string().contains("version 7"));
        let other = Writer::header(6, "TransformerSpec", 0);
        let error = Ct2Model::parse(&other.0).unwrap_err();
        assert!(error.to_string().contains("TransformerSpec"), "{error}");
    }

    #[test]
    fn a_shape_that_does_not_fit_its_bytes_is_refused() {
        let mut w = Writer::header(6, WHISPER_SPEC, 1);
        w.string("x");
        w.0.push(2);
        w.u32(1 << 31);
        w.u32(1 << 31);
        w.0.push(TYPE_FLOAT16);
        w.u32(4);
        w.0.extend_from_slice(&[0; 4]);
        let error = Ct2Model::parse(&w.0).unwrap_err().to_string();
        assert!(error.contains("does not fit"), "{error}");
    }
}
