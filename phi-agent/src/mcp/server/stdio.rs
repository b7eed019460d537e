//! Serving over stdio ([`serve_stdio`]): newline-delimited JSON-RPC, every line screened before
//! rmcp reads it.
//!
//! rmcp's own stdio transport stays silent on a line that is not JSON (see [`super::screen`]);
//! this one answers it, and every other malformed message, with its JSON-RPC error, and hands
//! rmcp only the messages it reads correctly. Output goes through one writer task, so that an
//! error this transport answers and a response rmcp sends can never interleave on stdout.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ClientJsonRpcMessage, ErrorData, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::{RoleServer, ServiceExt};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::screen::{Refusal, Screened, screen};
use super::settings::McpServer;
use crate::error::{AgentError, AgentResult};
use crate::registry::ToolRegistry;

/// The longest line read, as rmcp's own stdio transport: a longer one is refused unread.
const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Messages waiting for the writer. Small: a writer that falls behind (a client not reading its
/// stdout) makes senders wait instead of queueing without bound.
const OUTGOING_CAPACITY: usize = 64;

/// How long closing waits for the writer to put out what is queued.
const CLOSE_FLUSH_TIMEOUT: Duration = Duration::from_secs(5);

/// A server transport over a byte stream pair (stdin and stdout in
/// [`McpServer::serve_stdio`]).
struct ScreenedLines<R> {
    reader: BufReader<R>,
    /// The line being read; kept here so that a read cancelled half way (rmcp polls `receive`
    /// inside a `select!`) resumes where it stopped.
    line: Vec<u8>,
    /// Skipping the rest of a line longer than [`MAX_LINE_BYTES`].
    discarding: bool,
    /// An error answer not yet handed to the writer (kept across a cancelled `receive`).
    pending: Option<Vec<u8>>,
    outgoing: Option<mpsc::Sender<Vec<u8>>>,
    writer: Option<JoinHandle<()>>,
}

enum Line {
    Complete,
    TooLong,
}

impl<R: AsyncRead + Unpin + Send> ScreenedLines<R> {
    /// Reads from `read` and writes to `write` (on a task of its own). Call inside a runtime.
    fn new<W: AsyncWrite + Unpin + Send + 'static>(read: R, write: W) -> Self {
        let (outgoing, queue) = mpsc::channel(OUTGOING_CAPACITY);
        Self {
            reader: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            pending: None,
            outgoing: Some(outgoing),
            writer: Some(tokio::spawn(write_lines(write, queue))),
        }
    }

    /// Reads up to the end of the next line into `self.line`; `None` at the end of input.
    async fn next_line(&mut self) -> Option<Line> {
        loop {
            // One byte past the limit tells a line of exactly the limit from a longer one.
            let room = (MAX_LINE_BYTES + 1).saturating_sub(self.line.len()) as u64;
            let read = (&mut self.reader)
                .take(room)
                .read_until(b'\n', &mut self.line)
                .await;
            let count = match read {
                Ok(count) => count,
                Err(error) => {
                    tracing::warn!(%error, "MCP stdio: reading stdin failed; ending the session");
                    return None;
                }
            };
            if self.line.last() == Some(&b'\n') {
                if self.discarding {
                    self.discarding = false;
                    self.line.clear();
                    continue;
                }
                return Some(Line::Complete);
            }
            if count == 0 {
                // End of input; a last line without its newline is incomplete, so not read.
                return None;
            }
            if self.line.len() > MAX_LINE_BYTES {
                self.line.clear();
                if !self.discarding {
                    self.discarding = true;
                    return Some(Line::TooLong);
                }
            }
        }
    }

    /// Hands a pending error answer to the writer; `None` once the writer is gone.
    async fn flush_pending(&mut self) -> Option<()> {
        if self.pending.is_some() {
            // `reserve` then a synchronous send: a cancelled wait loses no answer.
            let permit = self.outgoing.as_ref()?.reserve().await.ok()?;
            permit.send(self.pending.take()?);
        }
        Some(())
    }
}

impl<R: AsyncRead + Unpin + Send> Transport<RoleServer> for ScreenedLines<R> {
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let outgoing = self.outgoing.clone();
        async move {
            let outgoing = outgoing.ok_or_else(closed)?;
            let bytes = serde_json::to_vec(&item).map_err(io::Error::other)?;
            outgoing.send(bytes).await.map_err(|_| closed())
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            self.flush_pending().await?;
            match self.next_line().await? {
                Line::Complete => {}
                Line::TooLong => {
                    let refusal = Refusal {
                        id: None,
                        error: ErrorData::invalid_request(
                            format!(
                                "Invalid Request: the message is longer than {MAX_LINE_BYTES} bytes"
                            ),
                            None,
                        ),
                    };
                    self.pending = Some(refusal.to_json());
                    continue;
                }
            }
            let text = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            let screened = (!text.is_empty()).then(|| screen(text));
            self.line.clear();
            match screened {
                Some(Screened::Message(message)) => return Some(*message),
                Some(Screened::Refuse(refusal)) => {
                    tracing::debug!(?refusal, "MCP stdio: answering a malformed message");
                    self.pending = Some(refusal.to_json());
                }
                Some(Screened::Ignore) | None => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // The writer ends once every sender is gone, after writing what is queued.
        self.outgoing = None;
        if let Some(writer) = self.writer.take()
            && tokio::time::timeout(CLOSE_FLUSH_TIMEOUT, writer)
                .await
                .is_err()
        {
            tracing::warn!("MCP stdio: stdout did not take the last messages in time");
        }
        Ok(())
    }
}

fn closed() -> io::Error {
    io::Error::new(
        io::ErrorKind::BrokenPipe,
        "the MCP stdio transport is closed",
    )
}

/// Writes each message as one line; flushes when no more are waiting, so a burst of responses
/// costs one flush rather than one per message.
async fn write_lines<W: AsyncWrite + Unpin>(write: W, mut queue: mpsc::Receiver<Vec<u8>>) {
    let mut write = tokio::io::BufWriter::new(write);
    while let Some(message) = queue.recv().await {
        let written = async {
            write.write_all(&message).await?;
            write.write_all(b"\n").await?;
            if queue.is_empty() {
                write.flush().await?;
            }
            io::Result::Ok(())
        };
        if let Err(error) = written.await {
            tracing::warn!(%error, "MCP stdio: writing stdout failed; ending output");
            return;
        }
    }
    let _ = write.flush().await;
}

/// Serves `registry` over stdin/stdout until the client disconnects.
///
/// This is what MCP clients (Claude Desktop, Cursor, IDEs, the MCP Inspector) launch. Nothing
/// else may write to stdout while it runs: log to stderr.
///
/// Every line is checked before rmcp reads it, so a malformed message gets its JSON-RPC error
/// and the session goes on: a line that is not JSON, or nests deeper than 128 levels, gets
/// `-32700` (with `id: null`); a standard request whose params do not fit its method (a
/// `tools/call` whose `arguments` is not an object) gets `-32602`; JSON that is no JSON-RPC
/// request gets `-32600`; a malformed notification is dropped, as JSON-RPC wants.
///
/// ```no_run
/// # async fn run(registry: phi_agent::registry::ToolRegistry) -> phi_agent::AgentResult<()> {
/// phi_agent::mcp::serve_stdio(registry).await
/// # }
/// ```
pub async fn serve_stdio(registry: impl Into<Arc<ToolRegistry>>) -> AgentResult<()> {
    McpServer::new(registry).serve_stdio().await
}

impl McpServer {
    /// Serves this server over stdin/stdout until the client disconnects; see
    /// [`serve_stdio`].
    pub async fn serve_stdio(self) -> AgentResult<()> {
        let (stdin, stdout) = rmcp::transport::stdio();
        let running = self
            .serve(ScreenedLines::new(stdin, stdout))
            .await
            .map_err(|error| stdio_error(format!("the MCP handshake failed: {error}")))?;
        running
            .waiting()
            .await
            .map_err(|error| stdio_error(format!("the MCP service stopped abnormally: {error}")))?;
        Ok(())
    }
}

/// An error of the stdio server.
fn stdio_error(message: String) -> AgentError {
    AgentError::Mcp {
        server: "stdio".to_string(),
        message,
    }
}
