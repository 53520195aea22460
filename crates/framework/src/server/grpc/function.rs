//! The provider function RPCs: GetFunctions and CallFunction.

use prost::Message as _;

use super::rpc::Ran;
use super::ProviderServer;
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::function::FunctionError;
use crate::proto::{self, decode, Unencoded};
use crate::server::guard::Subject;

impl ProviderServer {
    /// GetFunctions: every function's signature.
    pub(super) fn functions(
        &self,
        request: proto::get_functions::Request,
    ) -> proto::get_functions::Response {
        let ran = Ran::run("GetFunctions", Subject::Provider, &request, |_| {
            Some(proto::functions(&self.server.get_functions()))
        });
        let (functions, diagnostics) = ran.regardless();
        proto::get_functions::Response {
            functions: functions.unwrap_or_default(),
            diagnostics,
        }
    }

    /// CallFunction: the result, or the error (a failure of the call itself
    /// is one too).
    pub(super) fn call(
        &self,
        mut request: proto::call_function::Request,
    ) -> proto::call_function::Response {
        let request_bytes = request.encoded_len();
        let arguments = std::mem::take(&mut request.arguments);
        let ran = Ran::run_sized(
            "CallFunction",
            Subject::Function(&request.name),
            request_bytes,
            |_| Some(self.evaluate(&request.name, arguments)),
        );
        let result = match ran.result {
            Some(result) => result,
            None => Err(FunctionError {
                text: ran.details(),
                argument: None,
            }),
        };
        match result {
            Ok(result) => proto::call_function::Response {
                result: Some(result),
                error: None,
            },
            Err(error) => proto::call_function::Response {
                result: None,
                error: Some(proto::function_error(error)),
            },
        }
    }

    /// CallFunction's body: refuses arguments beyond the function's limit
    /// unread (on the largest), decodes the arguments (an undecodable one
    /// is blamed by position), each wire form dropped once decoded, calls the
    /// function, and encodes the result, the decoded arguments dropped
    /// first.
    fn evaluate(
        &self,
        name: &str,
        wire: Vec<proto::DynamicValue>,
    ) -> Result<proto::DynamicValue, FunctionError> {
        let signature = self.server.function_signature(name, wire.len())?;
        let sizes: Vec<usize> = wire
            .iter()
            .map(|a| a.msgpack.len() + a.json.len())
            .collect();
        let total: usize = sizes.iter().sum();
        if let Some(limit) = signature.limit.filter(|l| total > l.bytes) {
            return Err(FunctionError::argument(largest(&sizes), limit.refusal()));
        }
        let mut arguments = Vec::with_capacity(wire.len());
        for (index, (argument, parameter)) in
            wire.into_iter().zip(&signature.parameters).enumerate()
        {
            let mut diags = Diagnostics::new();
            let value = decode(
                Some(&argument),
                &parameter.ty,
                "function argument",
                &mut diags,
            )
            .filter(|_| !diags.has_errors())
            .ok_or_else(|| {
                FunctionError::argument(index, format!("{} could not be decoded.", parameter.name))
            })?;
            drop(argument);
            arguments.push(value);
        }
        let result = self.server.call_function(name, &arguments)?;
        drop(arguments);
        proto::encode_bounded(&result, &signature.returns).map_err(|unencoded| {
            let text = |d: Diagnostic| format!("{}: {}", d.summary, d.detail);
            match unencoded {
                // On the largest argument: what made the result so large.
                Unencoded::TooLarge(d) => FunctionError::argument(largest(&sizes), text(d)),
                Unencoded::Mistyped(d) => FunctionError {
                    text: text(d),
                    argument: None,
                },
            }
        })
    }
}

/// The position of the largest of the arguments of `sizes` bytes.
fn largest(sizes: &[usize]) -> usize {
    (0..sizes.len())
        .max_by_key(|&i| sizes[i])
        .unwrap_or_default()
}
