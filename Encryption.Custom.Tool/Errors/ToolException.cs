namespace Encryption.Custom.Tool.Errors;

/// <summary>
/// A failure the tool reports itself (the library reports through <see cref="EncryptionException"/>): the exit
/// code, a short kind for the error line, and a message that never holds key material or document content.
/// </summary>
internal sealed class ToolException : Exception
{
    /// <summary>The kind of a command-line mistake.</summary>
    public const string UsageErrorKind = "UsageError";

    /// <summary>The kind of a key file that cannot be read or does not hold a key.</summary>
    public const string InvalidKeyFileKind = "InvalidKeyFile";

    /// <summary>The kind of an input file or stream that cannot be read.</summary>
    public const string InputUnavailableKind = "InputUnavailable";

    /// <summary>The kind of an output file or stream that cannot be written.</summary>
    public const string OutputFailedKind = "OutputFailed";

    /// <summary>The kind of a run stopped by Ctrl+C, SIGTERM or its cancellation token.</summary>
    public const string CancelledKind = "Cancelled";

    /// <summary>The kind of a migration that left documents as they were.</summary>
    public const string DocumentsFailedKind = "DocumentsFailed";

    /// <summary>The kind of a migration refused because it would decrypt a path or change its encryption type unasked.</summary>
    public const string ChangeNotAllowedKind = "ChangeNotAllowed";

    /// <summary>The kind of a copy whose status found it not complete.</summary>
    public const string CopyIncompleteKind = "CopyIncomplete";

    /// <summary>The kind of a database or container named on the command line that does not exist.</summary>
    public const string NotFoundKind = "NotFound";

    /// <summary>The kind of a DEK create-dek would replace.</summary>
    public const string AlreadyExistsKind = "AlreadyExists";

    public ToolException()
        : this(ExitCodes.Failure, "Unexpected", "The tool failed.", null)
    {
    }

    public ToolException(string message)
        : this(ExitCodes.Failure, "Unexpected", message, null)
    {
    }

    public ToolException(string message, Exception? innerException)
        : this(ExitCodes.Failure, "Unexpected", message, innerException)
    {
    }

    private ToolException(int exitCode, string kind, string message, Exception? innerException)
        : base(message, innerException)
    {
        ExitCode = exitCode;
        Kind = kind;
    }

    /// <summary>The process exit code (see <see cref="ExitCodes"/>).</summary>
    public int ExitCode { get; }

    /// <summary>What went wrong, as printed at the start of the error line.</summary>
    public string Kind { get; }

    /// <summary>A command-line mistake (exit code 2).</summary>
    public static ToolException Usage(string message) => new(ExitCodes.UsageError, UsageErrorKind, message, null);

    /// <summary>A migration that would take encryption away without the operator naming it (exit code 2: the command line must say so).</summary>
    public static ToolException ChangeNotAllowed(string message) => new(ExitCodes.UsageError, ChangeNotAllowedKind, message, null);

    /// <summary>A database or container the command line names does not exist (exit code 1, as any service refusal).</summary>
    public static ToolException NotFound(string message, Exception innerException) => new(ExitCodes.Failure, NotFoundKind, message, innerException);

    /// <summary>A resource the command would create exists already (exit code 1, as any service refusal); nothing was written.</summary>
    public static ToolException AlreadyExists(string message, Exception innerException) => new(ExitCodes.Failure, AlreadyExistsKind, message, innerException);

    /// <summary>Bad input the operator supplied (exit code 3).</summary>
    public static ToolException BadInput(string kind, string message, Exception? innerException = null) =>
        new(ExitCodes.BadInput, kind, message, innerException);

    /// <summary>The run was stopped before its end (exit code 1).</summary>
    public static ToolException Cancelled(string message) => new(ExitCodes.Failure, CancelledKind, message, null);

    /// <summary>migrate finished but could not migrate some documents (exit code 4).</summary>
    public static ToolException DocumentsFailed(string message) => new(ExitCodes.DocumentsFailed, DocumentsFailedKind, message, null);

    /// <summary>A copy's status found it not complete (exit code 5).</summary>
    public static ToolException CopyIncomplete(string message) => new(ExitCodes.CopyIncomplete, CopyIncompleteKind, message, null);

    /// <summary>The result could not be written (exit code 1).</summary>
    public static ToolException OutputFailed(string message, Exception? innerException) =>
        new(ExitCodes.Failure, OutputFailedKind, message, innerException);
}
