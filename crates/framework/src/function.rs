//! The provider-defined function contract (Terraform >= 1.8).

use super::value::{Type, Value};

/// One positional parameter of a function.
#[derive(Debug, Clone)]
pub struct Parameter {
    /// Name in the docs and in Terraform's messages about the argument.
    pub name: &'static str,
    /// The type Terraform converts the argument to before the call.
    pub ty: Type,
    /// Markdown description.
    pub description: &'static str,
    /// Whether null may be passed.
    pub allow_null: bool,
    /// Attributes of an object `ty` that a call may leave out: Terraform
    /// (>= 1.8) sets them null before the call. The third element of the
    /// type's JSON form, as in cty's `["object", {...}, ["name", ...]]`.
    pub optional: &'static [&'static str],
}

/// The most a call's arguments may take together, in bytes of their wire
/// form (the MessagePack Terraform sends), and why, for the error.
#[derive(Debug, Clone, Copy)]
pub struct WireLimit {
    /// Bytes of the encoded arguments.
    pub bytes: usize,
    /// Why no larger arguments could be of use, a clause of the error.
    pub why: &'static str,
}

impl WireLimit {
    /// The error for arguments beyond the limit, on the largest. It names
    /// no size: an argument may hold a password, whose length a size would
    /// tell anyone who knows the rest.
    pub fn refusal(&self) -> String {
        let mib = if self.bytes < 1 << 20 {
            String::new()
        } else {
            format!(" ({:.1} MiB)", self.bytes as f64 / (1 << 20) as f64)
        };
        format!(
            "the arguments take more than the {} bytes{mib} this function takes in the wire format, this one the most: {}. They were refused before they were read; give a smaller input",
            self.bytes, self.why
        )
    }
}

impl Parameter {
    /// The JSON form of the parameter's type, with the optional attributes.
    pub fn type_json_bytes(&self) -> Vec<u8> {
        let mut json = self.ty.to_json();
        if let (false, serde_json::Value::Array(parts)) = (self.optional.is_empty(), &mut json) {
            parts.push(serde_json::Value::from(self.optional.to_vec()));
        }
        json.to_string().into_bytes()
    }
}

/// The signature and documentation of a function.
#[derive(Debug, Clone)]
pub struct Signature {
    /// Positional parameters.
    pub parameters: Vec<Parameter>,
    /// Result type.
    pub returns: Type,
    /// One-line summary.
    pub summary: &'static str,
    /// Markdown description.
    pub description: &'static str,
    /// The most its arguments may take, if tighter than the message limit:
    /// larger ones are refused before they are decoded.
    pub limit: Option<WireLimit>,
}

/// Why a call failed, optionally blaming one argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionError {
    /// Message shown to the user.
    pub text: String,
    /// Zero-based position of the argument at fault.
    pub argument: Option<usize>,
}

impl FunctionError {
    /// An error caused by argument `index`. Terraform ends the message
    /// with its own period (`Invalid value for "x" parameter: <text>.`), so
    /// trailing periods of `text` are dropped.
    pub fn argument(index: usize, text: impl Into<String>) -> Self {
        let mut text = text.into();
        text.truncate(text.trim_end_matches('.').len());
        Self {
            text,
            argument: Some(index),
        }
    }
}

/// A provider-defined function: pure, called with known arguments.
pub trait Function: Send + Sync {
    /// Name as called in HCL: `provider::clusterproxy::<name>(...)`.
    fn name(&self) -> &'static str;

    /// Parameters, result type and documentation, as GetProviderSchema and
    /// GetFunctions report them; CallFunction decodes arguments by it.
    fn signature(&self) -> Signature;

    /// Computes the result from arguments of the declared types.
    fn call(&self, arguments: &[Value]) -> Result<Value, FunctionError>;
}
