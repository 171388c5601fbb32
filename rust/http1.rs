//! HTTP/1.1 framing for a client, free of Python and of I/O: the response side is a state
//! machine fed the bytes read from a connection ([`ResponseCore`]), the request side a function
//! that writes a request head ([`encode_request_head`]).
//!
//! A response: interim (1xx) heads are read and skipped; the final head is parsed with
//! `httparse` within `max_head_bytes` and `max_headers`; then the body is framed by RFC 9112
//! section 6: none (a HEAD request, 204, 304), chunked (our decoder: extensions ignored, trailer
//! fields read, bounded and ignored), Content-Length, or read until the connection closes. The
//! bytes past the end of the response are kept (`trailing`). Whether the connection may carry
//! another request is decided from the version, `Connection: close` and the framing.
//!
//! Every decision depends on the bytes only, not on how they were cut into reads: the head is
//! parsed within its first `max_head_bytes` bytes, and the partial-line limits are checked so
//! that a line refused whole is refused in pieces too (the fuzz target `http1_chunks` checks it).

use std::fmt;

/// The default cap on the bytes of one response head (status line, fields, blank line), and on
/// the trailer section of a chunked body.
pub const DEFAULT_MAX_HEAD_BYTES: usize = 64 * 1024;
/// The default cap on the header fields of one response head.
pub const DEFAULT_MAX_HEADERS: usize = 100;
/// The cap on one chunk-size line (size and extensions, before its LF).
pub const MAX_CHUNK_LINE_BYTES: usize = 4096;

/// Why the bytes of a response are not one this client reads; the display is the contract's
/// message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Http1Error {
    BadVersion,
    BadStatusLine,
    BadHeaderName,
    BadHeaderValue,
    BadLineEnding,
    TooManyHeaders { limit: usize },
    HeadTooLarge { limit: usize },
    SwitchingProtocols,
    BadContentLength,
    ContentLengthWithTransferEncoding,
    UnsupportedTransferEncoding,
    TransferEncodingInHttp10,
    BadChunkSize,
    ChunkLineTooLong { limit: usize },
    BadChunkEnd,
    BadTrailer,
    TrailersTooLarge { limit: usize },
    ClosedInHead,
    ClosedInBody,
}

impl fmt::Display for Http1Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooManyHeaders { limit } => {
                return write!(f, "HTTP response head has more than {limit} header fields")
            }
            Self::HeadTooLarge { limit } => {
                return write!(f, "HTTP response head exceeds {limit} bytes")
            }
            Self::ChunkLineTooLong { limit } => {
                return write!(f, "HTTP chunk-size line exceeds {limit} bytes")
            }
            Self::TrailersTooLarge { limit } => {
                return write!(f, "HTTP trailer section exceeds {limit} bytes")
            }
            _ => {}
        }
        f.write_str(match self {
            Self::BadVersion => "invalid HTTP response head: bad HTTP version",
            Self::BadStatusLine => "invalid HTTP response head: bad status line",
            Self::BadHeaderName => "invalid HTTP response head: bad header name",
            Self::BadHeaderValue => "invalid HTTP response head: bad header value",
            Self::BadLineEnding => "invalid HTTP response head: bad line ending",
            Self::SwitchingProtocols => "HTTP 101 Switching Protocols is not supported",
            Self::BadContentLength => "invalid HTTP Content-Length",
            Self::ContentLengthWithTransferEncoding => {
                "HTTP response has both Transfer-Encoding and Content-Length"
            }
            Self::UnsupportedTransferEncoding => {
                "unsupported HTTP Transfer-Encoding (only chunked is supported)"
            }
            Self::TransferEncodingInHttp10 => "HTTP/1.0 response with Transfer-Encoding",
            Self::BadChunkSize => "invalid HTTP chunk-size line",
            Self::BadChunkEnd => "HTTP chunk data not followed by CRLF",
            Self::BadTrailer => "invalid HTTP trailer line",
            Self::ClosedInHead => "connection closed before the end of the HTTP response head",
            Self::ClosedInBody => "connection closed before the end of the HTTP response body",
            _ => unreachable!("handled above"),
        })
    }
}

impl std::error::Error for Http1Error {}

/// How the body of the final response is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// No body (a HEAD request, 204, 304).
    Empty,
    /// Exactly this many bytes.
    Length(u64),
    /// Chunked transfer coding.
    Chunked,
    /// Everything until the server closes the connection.
    UntilClose,
}

impl Framing {
    /// The name the Python layer shows.
    pub fn name(self) -> &'static str {
        match self {
            Self::Empty => "empty",
            Self::Length(_) => "content-length",
            Self::Chunked => "chunked",
            Self::UntilClose => "close",
        }
    }
}

/// The final response head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// The minor version: 0 for HTTP/1.0, 1 for HTTP/1.1.
    pub version: u8,
    pub status: u16,
    /// The reason phrase as received (it may hold obs-text).
    pub reason: Vec<u8>,
    /// The fields in order, names as received, values without surrounding whitespace.
    pub headers: Vec<(Vec<u8>, Vec<u8>)>,
}

/// What `ResponseCore::parse_heads` found at the start of the bytes it was given.
enum Heads {
    /// The final head ends after this many bytes (interim heads before it included).
    Final(usize),
    /// No final head yet; the interim heads before it took this many bytes (to be dropped).
    Partial(usize),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    Head,
    Length { remaining: u64 },
    ChunkSize,
    ChunkData { remaining: u64 },
    ChunkDataEnd { seen: u8 },
    Trailers { bytes: usize },
    UntilClose,
    Done,
    Failed(Http1Error),
}

/// One response, read from the bytes of a connection as they arrive.
#[derive(Debug)]
pub struct ResponseCore {
    head_request: bool,
    max_head_bytes: usize,
    max_headers: usize,
    state: State,
    /// The head received so far, or the part of a chunk-size or trailer line.
    buf: Vec<u8>,
    head: Option<Head>,
    framing: Option<Framing>,
    keep_alive: bool,
    trailing: Vec<u8>,
}

impl ResponseCore {
    /// A response to a request with the method HEAD when `head_request` (no body then).
    pub fn new(head_request: bool, max_head_bytes: usize, max_headers: usize) -> Self {
        Self {
            head_request,
            max_head_bytes,
            max_headers,
            state: State::Head,
            buf: Vec::new(),
            head: None,
            framing: None,
            keep_alive: false,
            trailing: Vec::new(),
        }
    }

    /// The final head, once received.
    pub fn head(&self) -> Option<&Head> {
        self.head.as_ref()
    }

    /// The body's framing, once the final head is received.
    pub fn framing(&self) -> Option<Framing> {
        self.framing
    }

    /// Whether the whole response has been read.
    pub fn is_complete(&self) -> bool {
        self.state == State::Done
    }

    /// Whether the connection may carry another request: the response is complete, HTTP/1.1,
    /// without `Connection: close`, not delimited by the close, and nothing followed it.
    pub fn keep_alive(&self) -> bool {
        self.state == State::Done && self.keep_alive && self.trailing.is_empty()
    }

    /// The bytes received past the end of the response.
    pub fn trailing(&self) -> &[u8] {
        &self.trailing
    }

    fn fail(&mut self, error: Http1Error) -> Http1Error {
        self.state = State::Failed(error.clone());
        self.buf = Vec::new();
        error
    }

    /// Takes the next bytes of the connection; calls `on_data` with each piece of body data
    /// they complete, in order.
    pub fn feed(&mut self, data: &[u8], on_data: &mut dyn FnMut(&[u8])) -> Result<(), Http1Error> {
        match self.feed_inner(data, on_data) {
            Ok(()) => Ok(()),
            Err(error) => Err(self.fail(error)),
        }
    }

    fn feed_inner(
        &mut self,
        data: &[u8],
        on_data: &mut dyn FnMut(&[u8]),
    ) -> Result<(), Http1Error> {
        let mut owned: Vec<u8> = Vec::new();
        let mut input: &[u8] = data;
        if self.state == State::Head {
            // A head that arrives whole in one read (the rule) is parsed where it is, not
            // copied first; only a part of one is kept for the next read.
            let buffered = !self.buf.is_empty();
            if buffered {
                self.buf.extend_from_slice(input);
                owned = std::mem::take(&mut self.buf);
            }
            let heads: &[u8] = if buffered { &owned } else { input };
            match self.parse_heads(heads)? {
                Heads::Final(length) => input = &heads[length..],
                Heads::Partial(interim) => {
                    if buffered {
                        owned.drain(..interim);
                        self.buf = owned;
                    } else {
                        self.buf = input[interim..].to_vec();
                    }
                    return Ok(());
                }
            }
        }
        loop {
            match self.state {
                State::Failed(ref error) => return Err(error.clone()),
                State::Done => {
                    self.trailing.extend_from_slice(input);
                    return Ok(());
                }
                State::UntilClose => {
                    if !input.is_empty() {
                        on_data(input);
                    }
                    return Ok(());
                }
                State::Head => return Ok(()), // (the head is parsed above: never here)
                State::Length { remaining } | State::ChunkData { remaining } => {
                    let take = usize::try_from(remaining)
                        .unwrap_or(usize::MAX)
                        .min(input.len());
                    if take > 0 {
                        on_data(&input[..take]);
                    }
                    input = &input[take..];
                    if self.consume_body(take as u64) > 0 {
                        return Ok(());
                    }
                }
                State::ChunkDataEnd { seen } => {
                    let mut seen = seen;
                    while seen < 2 {
                        let Some((&byte, rest)) = input.split_first() else {
                            self.state = State::ChunkDataEnd { seen };
                            return Ok(());
                        };
                        if byte != b"\r\n"[usize::from(seen)] {
                            return Err(Http1Error::BadChunkEnd);
                        }
                        seen += 1;
                        input = rest;
                    }
                    self.state = State::ChunkSize;
                }
                State::ChunkSize => {
                    let Some(lf) = memchr::memchr(b'\n', input) else {
                        if self.buf.len() + input.len() > MAX_CHUNK_LINE_BYTES {
                            return Err(Http1Error::ChunkLineTooLong {
                                limit: MAX_CHUNK_LINE_BYTES,
                            });
                        }
                        self.buf.extend_from_slice(input);
                        return Ok(());
                    };
                    if self.buf.len() + lf > MAX_CHUNK_LINE_BYTES {
                        return Err(Http1Error::ChunkLineTooLong {
                            limit: MAX_CHUNK_LINE_BYTES,
                        });
                    }
                    let size = if self.buf.is_empty() {
                        parse_chunk_size(&input[..lf])?
                    } else {
                        self.buf.extend_from_slice(&input[..lf]);
                        let size = parse_chunk_size(&self.buf)?;
                        self.buf.clear();
                        size
                    };
                    input = &input[lf + 1..];
                    self.state = if size == 0 {
                        State::Trailers { bytes: 0 }
                    } else {
                        State::ChunkData { remaining: size }
                    };
                }
                State::Trailers { bytes } => {
                    let limit = self.max_head_bytes;
                    let Some(lf) = memchr::memchr(b'\n', input) else {
                        if bytes + self.buf.len() + input.len() > limit {
                            return Err(Http1Error::TrailersTooLarge { limit });
                        }
                        self.buf.extend_from_slice(input);
                        return Ok(());
                    };
                    let line_len = self.buf.len() + lf;
                    let bytes = bytes + line_len + 1;
                    if bytes > limit {
                        return Err(Http1Error::TrailersTooLarge { limit });
                    }
                    let last = if lf > 0 {
                        input[lf - 1]
                    } else {
                        self.buf.last().copied().unwrap_or(b'\n')
                    };
                    if last != b'\r' {
                        return Err(Http1Error::BadTrailer);
                    }
                    self.buf.clear();
                    input = &input[lf + 1..];
                    // trailer fields are read and ignored (RFC 9112, 7.1.2): a line of its CR
                    // alone is the blank line that ends the section
                    self.state = if line_len == 1 {
                        State::Done
                    } else {
                        State::Trailers { bytes }
                    };
                }
            }
        }
    }

    /// How many of the next bytes of the connection are body data for sure: what is left of a
    /// `Content-Length` body or of the chunk being read (0 anywhere else: in a head, a chunk
    /// line, trailers, a body read until the close, or after the end).
    pub fn body_ahead(&self) -> u64 {
        match self.state {
            State::Length { remaining } | State::ChunkData { remaining } => remaining,
            _ => 0,
        }
    }

    /// Takes `count` bytes of body data that were received without passing through `feed`
    /// (read straight into the caller's buffer). False, and nothing taken, when `count` passes
    /// `body_ahead`.
    pub fn skip_body(&mut self, count: u64) -> bool {
        if count > self.body_ahead() {
            return false;
        }
        if count > 0 {
            self.consume_body(count);
        }
        true
    }

    /// `take` bytes of the body data left (`Length` or `ChunkData`, at least `take`) were read:
    /// the next state. Returns what is left of the body or chunk.
    fn consume_body(&mut self, take: u64) -> u64 {
        let (State::Length { remaining } | State::ChunkData { remaining }) = self.state else {
            unreachable!("consume_body outside body data");
        };
        let remaining = remaining - take;
        self.state = match (&self.state, remaining) {
            (State::Length { .. }, 0) => State::Done,
            (State::Length { .. }, _) => State::Length { remaining },
            (_, 0) => State::ChunkDataEnd { seen: 0 },
            (_, _) => State::ChunkData { remaining },
        };
        remaining
    }

    /// The connection closed: ends a body read until the close, or the error of a response cut
    /// short. Nothing can be fed afterwards but bytes that go to `trailing`.
    pub fn feed_eof(&mut self) -> Result<(), Http1Error> {
        let error = match self.state {
            State::Done => return Ok(()),
            State::UntilClose => {
                self.state = State::Done;
                return Ok(());
            }
            State::Failed(ref error) => return Err(error.clone()),
            State::Head => Http1Error::ClosedInHead,
            _ => Http1Error::ClosedInBody,
        };
        Err(self.fail(error))
    }

    /// Parses the head in `buf`: its length once complete (interim heads are dropped and
    /// parsing starts over after them, so the length returned is of the final head).
    /// Parses the heads at the start of `buf`: the interim (1xx) ones are skipped, the final
    /// one starts the body.
    fn parse_heads(&mut self, buf: &[u8]) -> Result<Heads, Http1Error> {
        let mut start = 0;
        loop {
            let rest = &buf[start..];
            let window = &rest[..rest.len().min(self.max_head_bytes)];
            let Some((length, head)) = parse_head(window, self.max_headers)? else {
                if rest.len() >= self.max_head_bytes {
                    return Err(Http1Error::HeadTooLarge {
                        limit: self.max_head_bytes,
                    });
                }
                return Ok(Heads::Partial(start));
            };
            if head.status < 100 {
                return Err(Http1Error::BadStatusLine);
            }
            if head.status == 101 {
                return Err(Http1Error::SwitchingProtocols);
            }
            if head.status < 200 {
                start += length;
                continue;
            }
            self.start_body(head)?;
            return Ok(Heads::Final(start + length));
        }
    }

    fn start_body(&mut self, head: Head) -> Result<(), Http1Error> {
        let mut content_length: Option<u64> = None;
        let mut transfer_encoding: Option<Vec<u8>> = None;
        let mut close = false;
        for (name, value) in &head.headers {
            if name.eq_ignore_ascii_case(b"content-length") {
                for item in value.split(|&b| b == b',') {
                    let length = parse_content_length(trim(item))?;
                    if content_length.is_some_and(|seen| seen != length) {
                        return Err(Http1Error::BadContentLength);
                    }
                    content_length = Some(length);
                }
            } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
                let joined = transfer_encoding.get_or_insert_with(Vec::new);
                if !joined.is_empty() {
                    joined.push(b',');
                }
                joined.extend_from_slice(value);
            } else if name.eq_ignore_ascii_case(b"connection") {
                close |= value
                    .split(|&b| b == b',')
                    .any(|token| trim(token).eq_ignore_ascii_case(b"close"));
            }
        }
        let framing = if self.head_request || head.status == 204 || head.status == 304 {
            Framing::Empty
        } else if let Some(codings) = transfer_encoding {
            if head.version == 0 {
                return Err(Http1Error::TransferEncodingInHttp10);
            }
            if content_length.is_some() {
                return Err(Http1Error::ContentLengthWithTransferEncoding);
            }
            let mut items = codings.split(|&b| b == b',').map(trim);
            match (items.next(), items.next()) {
                (Some(item), None) if item.eq_ignore_ascii_case(b"chunked") => Framing::Chunked,
                _ => return Err(Http1Error::UnsupportedTransferEncoding),
            }
        } else if let Some(length) = content_length {
            Framing::Length(length)
        } else {
            Framing::UntilClose
        };
        self.keep_alive = head.version == 1 && !close && framing != Framing::UntilClose;
        self.state = match framing {
            Framing::Empty | Framing::Length(0) => State::Done,
            Framing::Length(remaining) => State::Length { remaining },
            Framing::Chunked => State::ChunkSize,
            Framing::UntilClose => State::UntilClose,
        };
        self.framing = Some(framing);
        self.head = Some(head);
        Ok(())
    }
}

/// `value` without leading and trailing SP and HTAB.
fn trim(value: &[u8]) -> &[u8] {
    let is_space = |b: &u8| *b == b' ' || *b == b'\t';
    let start = value
        .iter()
        .position(|b| !is_space(b))
        .unwrap_or(value.len());
    let end = value
        .iter()
        .rposition(|b| !is_space(b))
        .map_or(start, |i| i + 1);
    &value[start..end]
}

/// One Content-Length value: 1*DIGIT, at most 2**64 - 1.
fn parse_content_length(digits: &[u8]) -> Result<u64, Http1Error> {
    if digits.is_empty() {
        return Err(Http1Error::BadContentLength);
    }
    digits.iter().try_fold(0u64, |n, &b| {
        if !b.is_ascii_digit() {
            return Err(Http1Error::BadContentLength);
        }
        n.checked_mul(10)
            .and_then(|n| n.checked_add(u64::from(b - b'0')))
            .ok_or(Http1Error::BadContentLength)
    })
}

/// A chunk-size line without its LF: `1*HEXDIG [ *(SP / HTAB) ";" extension ] CR`; the size
/// must fit 64 bits; extension bytes are HTAB, SP, VCHAR or obs-text and are ignored.
fn parse_chunk_size(line: &[u8]) -> Result<u64, Http1Error> {
    let Some((&b'\r', line)) = line.split_last() else {
        return Err(Http1Error::BadChunkSize);
    };
    let digits = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    if digits == 0 {
        return Err(Http1Error::BadChunkSize);
    }
    let mut size: u64 = 0;
    for &b in &line[..digits] {
        let digit = u64::from(char::from(b).to_digit(16).unwrap_or(0));
        size = size
            .checked_mul(16)
            .and_then(|n| n.checked_add(digit))
            .ok_or(Http1Error::BadChunkSize)?;
    }
    let rest = &line[digits..];
    let spaces = rest
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    match rest.get(spaces) {
        None if spaces == 0 => {}
        Some(b';') => {
            if !rest[spaces + 1..]
                .iter()
                .all(|&b| b == b'\t' || (b' '..=b'~').contains(&b) || b >= 0x80)
            {
                return Err(Http1Error::BadChunkSize);
            }
        }
        _ => return Err(Http1Error::BadChunkSize),
    }
    Ok(size)
}

/// Parses one response head at the start of `buf` with `httparse` (leading empty lines are
/// skipped, as it does): `None` while incomplete, else its length and the head.
pub fn parse_head(buf: &[u8], max_headers: usize) -> Result<Option<(usize, Head)>, Http1Error> {
    // A field line takes 3 bytes at least ("a:\n"), so `buf` cannot hold more than a third of
    // its length in fields: the array need not be longer (nor a huge `max_headers` allocated),
    // and httparse still runs out of room only past `max_headers`.
    let room = max_headers.min(buf.len() / 3 + 1);
    if room <= ON_STACK_FIELDS {
        // (the rule: no allocation for the array)
        let mut fields = [httparse::EMPTY_HEADER; ON_STACK_FIELDS];
        return parse_head_with(buf, &mut fields[..room], max_headers);
    }
    parse_head_with(buf, &mut vec![httparse::EMPTY_HEADER; room], max_headers)
}

/// How many fields a head may have for `parse_head` to take it without allocating its array.
const ON_STACK_FIELDS: usize = 32;

fn parse_head_with<'b>(
    buf: &'b [u8],
    fields: &mut [httparse::Header<'b>],
    max_headers: usize,
) -> Result<Option<(usize, Head)>, Http1Error> {
    let mut response = httparse::Response::new(fields);
    let length = match response.parse(buf) {
        Ok(httparse::Status::Complete(length)) => length,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(error) => {
            return Err(match error {
                httparse::Error::Version => Http1Error::BadVersion,
                httparse::Error::Status => Http1Error::BadStatusLine,
                httparse::Error::HeaderName => Http1Error::BadHeaderName,
                httparse::Error::HeaderValue => Http1Error::BadHeaderValue,
                httparse::Error::TooManyHeaders => {
                    Http1Error::TooManyHeaders { limit: max_headers }
                }
                _ => Http1Error::BadLineEnding,
            })
        }
    };
    let (Some(version), Some(status)) = (response.version, response.code) else {
        return Err(Http1Error::BadStatusLine);
    };
    let headers = response
        .headers
        .iter()
        .map(|h| (h.name.as_bytes().to_vec(), h.value.to_vec()))
        .collect();
    Ok(Some((
        length,
        Head {
            version,
            status,
            reason: reason_phrase(buf).to_vec(),
            headers,
        },
    )))
}

/// The reason phrase of the status line `httparse` accepted at the start of `buf`, as received
/// (`httparse` gives `""` for one with obs-text).
fn reason_phrase(buf: &[u8]) -> &[u8] {
    let start = buf
        .iter()
        .position(|&b| b != b'\r' && b != b'\n')
        .unwrap_or(buf.len());
    let line = &buf[start..];
    let end = memchr::memchr(b'\n', line).unwrap_or(line.len());
    let line = &line[..end];
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    // "HTTP/1.1 200" then nothing, or a space and the phrase
    line.get(13..).unwrap_or_default()
}

/// Why a request head cannot be written; the display is the message of the `ValueError`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestError {
    BadMethod,
    BadTarget,
    BadHeaderName,
    BadHeaderValue,
    ContentLengthTwice,
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::BadMethod => "invalid HTTP method",
            Self::BadTarget => "invalid HTTP request target",
            Self::BadHeaderName => "invalid HTTP header name",
            Self::BadHeaderValue => "invalid HTTP header value",
            Self::ContentLengthTwice => "content_length given and a Content-Length header too",
        })
    }
}

impl std::error::Error for RequestError {}

/// A token character (RFC 9110, 5.6.2).
pub fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// A byte a field value may hold: HTAB, SP, VCHAR, obs-text.
pub fn is_value_byte(b: u8) -> bool {
    b == b'\t' || (b' '..=b'~').contains(&b) || b >= 0x80
}

/// Appends the head of an HTTP/1.1 request to `out`: the request line, the fields in order,
/// `Content-Length: {content_length}` when given, and the blank line.
pub fn encode_request_head(
    out: &mut Vec<u8>,
    method: &[u8],
    target: &[u8],
    headers: &[(&[u8], &[u8])],
    content_length: Option<u64>,
) -> Result<(), RequestError> {
    if method.is_empty() || !method.iter().all(|&b| is_token(b)) {
        return Err(RequestError::BadMethod);
    }
    if target.is_empty() || !target.iter().all(|&b| b > b' ' && b != 0x7F) {
        return Err(RequestError::BadTarget);
    }
    out.reserve(method.len() + target.len() + 32 + headers.len() * 32);
    out.extend_from_slice(method);
    out.push(b' ');
    out.extend_from_slice(target);
    out.extend_from_slice(b" HTTP/1.1\r\n");
    for (name, value) in headers {
        if name.is_empty() || !name.iter().all(|&b| is_token(b)) {
            return Err(RequestError::BadHeaderName);
        }
        if !value.iter().all(|&b| is_value_byte(b)) {
            return Err(RequestError::BadHeaderValue);
        }
        if content_length.is_some() && name.eq_ignore_ascii_case(b"content-length") {
            return Err(RequestError::ContentLengthTwice);
        }
        out.extend_from_slice(name);
        out.extend_from_slice(b": ");
        out.extend_from_slice(value);
        out.extend_from_slice(b"\r\n");
    }
    if let Some(length) = content_length {
        out.extend_from_slice(format!("Content-Length: {length}\r\n").as_bytes());
    }
    out.extend_from_slice(b"\r\n");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `chunks`, then the EOF when `eof`: the body, or the error.
    fn read(core: &mut ResponseCore, chunks: &[&[u8]], eof: bool) -> Result<Vec<u8>, Http1Error> {
        let mut body = Vec::new();
        for chunk in chunks {
            core.feed(chunk, &mut |data| body.extend_from_slice(data))?;
        }
        if eof {
            core.feed_eof()?;
        }
        Ok(body)
    }

    /// The outcome of `data` fed whole, and checks it is the same cut at every position.
    fn read_every_way(data: &[u8], head_request: bool, eof: bool) -> Result<Vec<u8>, Http1Error> {
        let whole = read(&mut ResponseCore::new(head_request, 1024, 10), &[data], eof);
        for cut in 0..=data.len() {
            let (a, b) = data.split_at(cut);
            let mut core = ResponseCore::new(head_request, 1024, 10);
            assert_eq!(read(&mut core, &[a, b], eof), whole, "cut at {cut}");
        }
        let bytes: Vec<&[u8]> = data.chunks(1).collect();
        let mut core = ResponseCore::new(head_request, 1024, 10);
        assert_eq!(read(&mut core, &bytes, eof), whole, "byte by byte");
        whole
    }

    /// Reads `data` as `read` does, except that whenever body data is sure to come, the
    /// largest part of it (at most `most` bytes) is taken past `feed`, as a read straight into
    /// a caller's buffer is (`body_ahead`, `skip_body`).
    fn read_skipping(data: &[u8], most: usize) -> Result<Vec<u8>, Http1Error> {
        let mut core = ResponseCore::new(false, 1024, 10);
        let mut body = Vec::new();
        let mut rest = data;
        while !rest.is_empty() {
            let ahead = usize::try_from(core.body_ahead()).unwrap();
            if ahead > 0 {
                let take = ahead.min(most).min(rest.len());
                assert!(core.skip_body(take as u64));
                body.extend_from_slice(&rest[..take]);
                rest = &rest[take..];
            } else {
                core.feed(&rest[..1], &mut |piece| body.extend_from_slice(piece))?;
                rest = &rest[1..];
            }
        }
        core.feed_eof()?;
        Ok(body)
    }

    #[test]
    fn body_taken_past_feed_reads_as_fed() {
        let length = b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world";
        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\
            5\r\nhello\r\n6;x=y\r\n world\r\n0\r\nT: v\r\n\r\n";
        for most in [1, 2, 3, 5, 100] {
            assert_eq!(read_skipping(length, most).unwrap(), b"hello world");
            assert_eq!(read_skipping(chunked, most).unwrap(), b"hello world");
        }
        // a chunk's CRLF is still checked after its data was taken past `feed`
        let bad_end = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n";
        assert_eq!(read_skipping(bad_end, 100), Err(Http1Error::BadChunkEnd));
        // a body cut short is still an error at the close
        let short = b"HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\nhello";
        assert_eq!(read_skipping(short, 100), Err(Http1Error::ClosedInBody));
    }

    #[test]
    fn body_ahead_is_only_body_data() {
        let mut core = ResponseCore::new(false, 1024, 10);
        assert_eq!(core.body_ahead(), 0);
        assert!(!core.skip_body(1), "nothing to take in a head");
        assert!(core.skip_body(0));
        let mut sink = |_: &[u8]| {};
        core.feed(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4",
            &mut sink,
        )
        .unwrap();
        assert_eq!(core.body_ahead(), 0, "in a chunk-size line");
        core.feed(b"\r\nab", &mut sink).unwrap();
        assert_eq!(core.body_ahead(), 2);
        assert!(!core.skip_body(3), "past the chunk: refused");
        assert_eq!(core.body_ahead(), 2, "and nothing taken");
        assert!(core.skip_body(2));
        assert_eq!(core.body_ahead(), 0, "at the chunk's CRLF");
        let mut close = ResponseCore::new(false, 1024, 10);
        close
            .feed(b"HTTP/1.1 200 OK\r\n\r\nabc", &mut sink)
            .unwrap();
        assert_eq!(
            close.body_ahead(),
            0,
            "a body read until the close has no known length"
        );
    }

    #[test]
    fn content_length_body() {
        let data = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX: y\r\n\r\nhello";
        assert_eq!(read_every_way(data, false, false).unwrap(), b"hello");
        let mut core = ResponseCore::new(false, 1024, 10);
        read(&mut core, &[data], false).unwrap();
        let head = core.head().unwrap();
        assert_eq!(head.status, 200);
        assert_eq!(head.reason, b"OK");
        assert_eq!(head.headers[1], (b"X".to_vec(), b"y".to_vec()));
        assert!(core.is_complete() && core.keep_alive());
        assert_eq!(core.framing(), Some(Framing::Length(5)));
    }

    #[test]
    fn chunked_body_with_extensions_and_trailers() {
        let data = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\
            5;a=b\r\nhello\r\n1 ; x\r\n!\r\n0\r\nExpires: never\r\n\r\n";
        assert_eq!(read_every_way(data, false, false).unwrap(), b"hello!");
        let mut core = ResponseCore::new(false, 1024, 10);
        read(&mut core, &[data, b"extra"], false).unwrap();
        assert!(core.is_complete() && !core.keep_alive());
        assert_eq!(core.trailing(), b"extra");
    }

    #[test]
    fn interim_responses_are_skipped() {
        let data = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early\r\nLink: x\r\n\r\n\
            HTTP/1.1 204 No Content\r\n\r\n";
        assert_eq!(read_every_way(data, false, false).unwrap(), b"");
        let mut core = ResponseCore::new(false, 1024, 10);
        read(&mut core, &[data], false).unwrap();
        assert_eq!(core.head().unwrap().status, 204);
        assert!(core.keep_alive());
    }

    #[test]
    fn until_close_and_http10() {
        let data = b"HTTP/1.0 200 OK\r\n\r\nall of it";
        assert_eq!(read_every_way(data, false, true).unwrap(), b"all of it");
        let mut core = ResponseCore::new(false, 1024, 10);
        read(&mut core, &[data], false).unwrap();
        assert!(!core.is_complete());
        core.feed_eof().unwrap();
        assert!(core.is_complete() && !core.keep_alive());
    }

    #[test]
    fn head_request_and_304_have_no_body() {
        let data = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n";
        assert_eq!(read_every_way(data, true, false).unwrap(), b"");
        let data = b"HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n";
        assert_eq!(read_every_way(data, false, false).unwrap(), b"");
    }

    #[test]
    fn connection_close_ends_keep_alive() {
        let data = b"HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n";
        let mut core = ResponseCore::new(false, 1024, 10);
        read(&mut core, &[data], false).unwrap();
        assert!(core.is_complete() && !core.keep_alive());
    }

    #[test]
    fn hostile_responses_are_refused() {
        let cases: &[(&[u8], Http1Error)] = &[
            (
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n",
                Http1Error::BadChunkSize,
            ),
            (
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n",
                Http1Error::BadChunkSize,
            ),
            (
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                Http1Error::BadChunkSize,
            ),
            (
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n",
                Http1Error::BadChunkEnd,
            ),
            (
                b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
                Http1Error::BadContentLength,
            ),
            (
                b"HTTP/1.1 200 OK\r\nContent-Length: +1\r\n\r\n",
                Http1Error::BadContentLength,
            ),
            (
                b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
                Http1Error::BadContentLength,
            ),
            (
                b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
                Http1Error::ContentLengthWithTransferEncoding,
            ),
            (
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
                Http1Error::UnsupportedTransferEncoding,
            ),
            (
                b"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                Http1Error::TransferEncodingInHttp10,
            ),
            (
                b"HTTP/1.1 200 OK\r\nA: b\r\n folded\r\n\r\n",
                Http1Error::BadHeaderName,
            ),
            (
                b"HTTP/1.1 200 OK\r\nA : b\r\n\r\n",
                Http1Error::BadHeaderName,
            ),
            (
                b"HTTP/1.1 200 OK\r\nA: b\x00\r\n\r\n",
                Http1Error::BadHeaderValue,
            ),
            (b"HTTP/2.0 200 OK\r\n\r\n", Http1Error::BadVersion),
            (b"HTTP/1.1 20x OK\r\n\r\n", Http1Error::BadStatusLine),
            (b"HTTP/1.1 099 Low\r\n\r\n", Http1Error::BadStatusLine),
            (
                b"HTTP/1.1 101 Switching\r\n\r\n",
                Http1Error::SwitchingProtocols,
            ),
        ];
        for (data, error) in cases {
            assert_eq!(
                read_every_way(data, false, false),
                Err(error.clone()),
                "{data:?}"
            );
        }
    }

    #[test]
    fn limits() {
        let mut fields = b"HTTP/1.1 200 OK\r\n".to_vec();
        for _ in 0..11 {
            fields.extend_from_slice(b"A: b\r\n");
        }
        fields.extend_from_slice(b"\r\n");
        assert_eq!(
            read_every_way(&fields, false, false),
            Err(Http1Error::TooManyHeaders { limit: 10 })
        );
        let mut big = b"HTTP/1.1 200 OK\r\nA: ".to_vec();
        big.extend(std::iter::repeat_n(b'x', 2000));
        assert_eq!(
            read_every_way(&big, false, false),
            Err(Http1Error::HeadTooLarge { limit: 1024 })
        );
        let mut line = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;".to_vec();
        line.extend(std::iter::repeat_n(b'x', MAX_CHUNK_LINE_BYTES));
        assert_eq!(
            read_every_way(&line, false, false),
            Err(Http1Error::ChunkLineTooLong {
                limit: MAX_CHUNK_LINE_BYTES
            })
        );
        let mut trailers = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n".to_vec();
        for _ in 0..200 {
            trailers.extend_from_slice(b"T: v\r\n");
        }
        assert_eq!(
            read_every_way(&trailers, false, false),
            Err(Http1Error::TrailersTooLarge { limit: 1024 })
        );
    }

    #[test]
    fn eof_cuts() {
        let data = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel";
        assert_eq!(
            read_every_way(data, false, true),
            Err(Http1Error::ClosedInBody)
        );
        assert_eq!(
            read_every_way(b"HTTP/1.1 200", false, true),
            Err(Http1Error::ClosedInHead)
        );
        let mut core = ResponseCore::new(false, 1024, 10);
        assert_eq!(core.feed_eof(), Err(Http1Error::ClosedInHead));
        // a failed response raises the same error again
        assert_eq!(core.feed(b"x", &mut |_| {}), Err(Http1Error::ClosedInHead));
    }

    #[test]
    fn reason_phrase_as_received() {
        let mut core = ResponseCore::new(false, 1024, 10);
        read(
            &mut core,
            &[b"HTTP/1.1 200 \xe9t\xe9\r\nContent-Length: 0\r\n\r\n"],
            false,
        )
        .unwrap();
        assert_eq!(core.head().unwrap().reason, b"\xe9t\xe9");
        let mut core = ResponseCore::new(false, 1024, 10);
        read(
            &mut core,
            &[b"\r\nHTTP/1.1 200\nContent-Length: 0\n\n"],
            false,
        )
        .unwrap();
        assert_eq!(core.head().unwrap().reason, b"");
    }

    #[test]
    fn request_head() {
        let mut out = Vec::new();
        encode_request_head(
            &mut out,
            b"POST",
            b"/mcp?x=1",
            &[(b"Host", b"example.com"), (b"Accept", b"*/*")],
            Some(12),
        )
        .unwrap();
        assert_eq!(
            out,
            b"POST /mcp?x=1 HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\nContent-Length: 12\r\n\r\n"
        );
        type Case<'a> = (&'a [u8], &'a [u8], &'a [(&'a [u8], &'a [u8])], RequestError);
        let bad: &[Case] = &[
            (b"GE T", b"/", &[], RequestError::BadMethod),
            (b"GET", b"/ x", &[], RequestError::BadTarget),
            (b"GET", b"/", &[(b"A:", b"b")], RequestError::BadHeaderName),
            (
                b"GET",
                b"/",
                &[(b"A", b"b\r\nInjected: 1")],
                RequestError::BadHeaderValue,
            ),
        ];
        for (method, target, headers, error) in bad {
            let mut out = Vec::new();
            assert_eq!(
                encode_request_head(&mut out, method, target, headers, None),
                Err(*error)
            );
        }
        assert_eq!(
            encode_request_head(
                &mut out,
                b"GET",
                b"/",
                &[(b"content-length", b"1")],
                Some(1)
            ),
            Err(RequestError::ContentLengthTwice)
        );
    }
}
