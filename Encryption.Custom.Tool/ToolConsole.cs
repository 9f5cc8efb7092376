namespace Encryption.Custom.Tool;

/// <summary>The streams a run reads and writes: the process's own, or test doubles.</summary>
/// <param name="In">Standard input: the document when no <c>--in</c> is given.</param>
/// <param name="Out">Standard output: the result when no <c>--out</c> is given, help and version text.</param>
/// <param name="Error">Standard error: exactly one line when a run fails, nothing otherwise.</param>
/// <param name="IsTerminal">Whether standard output is a terminal (migrate then draws a progress bar instead of lines).</param>
internal sealed record ToolConsole(Stream In, Stream Out, TextWriter Error, bool IsTerminal = false);
