namespace Encryption.Custom.Tool;

/// <summary>The tool's exit codes (docs/tool.md): scripts branch on them, so they never change meaning.</summary>
internal static class ExitCodes
{
    /// <summary>The command succeeded.</summary>
    public const int Success = 0;

    /// <summary>The output could not be written, the service refused a request or cannot be reached, the run was cancelled, or the tool failed unexpectedly.</summary>
    public const int Failure = 1;

    /// <summary>Unknown command or option, missing required option, bad option value or path syntax.</summary>
    public const int UsageError = 2;

    /// <summary>Bad input: malformed JSON, wrong key, tampered value, unsupported format, unreadable input, bad key file.</summary>
    public const int BadInput = 3;

    /// <summary>migrate finished, but reported documents it could not migrate (left as they were).</summary>
    public const int DocumentsFailed = 4;

    /// <summary>status --target-container: the copy is not complete (documents missing, different, unreadable, or outside the target state).</summary>
    public const int CopyIncomplete = 5;
}
