using System.Globalization;
using System.Text;

namespace Encryption.Custom.Tool.Errors;

/// <summary>
/// The one line a failed run writes to standard error:
/// <c>cosmos-encryption: &lt;kind&gt; (dekId '&lt;id&gt;', path '&lt;path&gt;'): &lt;message&gt;</c>, the parenthesis only
/// with what is known. Control characters (a DEK id or path read from a document may hold line breaks) are
/// escaped so that the line stays one line.
/// </summary>
internal static class ErrorLine
{
    /// <summary>Starts every error line, so that the tool's errors are easy to find in a log.</summary>
    public const string Prefix = "cosmos-encryption: ";

    /// <summary>The line for a failure the tool itself detected.</summary>
    public static string For(ToolException exception) => Compose(exception.Kind, exception.Message, null, null);

    /// <summary>The line for a library failure: its kind, DEK id and path, and its message (which holds no secret).</summary>
    public static string For(EncryptionException exception) =>
        Compose(exception.Kind.ToString(), exception.Message, exception.DataEncryptionKeyId, exception.Path);

    /// <summary>The line for a request the service refused or that could not reach it.</summary>
    public static string ForService(string message) => Compose("ServiceError", message, null, null);

    /// <summary>The line for a failure nobody anticipated: its type only, since its message could quote document content.</summary>
    public static string ForUnexpected(Exception exception) =>
        Compose("Unexpected", $"the tool failed with {exception.GetType().FullName}; no details are printed because they could quote document content.", null, null);

    private static string Compose(string kind, string message, string? dataEncryptionKeyId, string? path)
    {
        var line = new StringBuilder(Prefix.Length + kind.Length + message.Length + 64);
        line.Append(Prefix);
        AppendEscaped(line, kind);
        if (dataEncryptionKeyId is not null || path is not null)
        {
            line.Append(" (");
            if (dataEncryptionKeyId is not null)
            {
                line.Append("dekId '");
                AppendEscaped(line, dataEncryptionKeyId);
                line.Append('\'');
            }

            if (path is not null)
            {
                line.Append(dataEncryptionKeyId is null ? "path '" : ", path '");
                AppendEscaped(line, path);
                line.Append('\'');
            }

            line.Append(')');
        }

        line.Append(": ");
        AppendEscaped(line, message);
        return line.ToString();
    }

    private static void AppendEscaped(StringBuilder line, string text)
    {
        foreach (char c in text)
        {
            if (char.IsControl(c) || c is '\u2028' or '\u2029')
            {
                line.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
            }
            else
            {
                line.Append(c);
            }
        }
    }
}
