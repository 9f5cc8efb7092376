using System.CommandLine;
using System.CommandLine.Parsing;
using System.Runtime.CompilerServices;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary>
/// The tool's own usage messages in System.CommandLine's error list: an option's parser adds one with
/// <see cref="Add{T}"/>, and <see cref="FirstOf"/> reads it back. System.CommandLine's own messages quote the
/// command line (a key pasted in the wrong place would end up in a log), so an error the tool did not write is
/// never shown: it becomes a generic usage error.
/// </summary>
internal static class UsageErrors
{
    private const int MaxWordLength = 20;

    // The exact message instances the tool added (an error is the tool's only if it carries one of them).
    private static readonly ConditionalWeakTable<string, object> s_ours = [];

    /// <summary>Reports <paramref name="message"/> for the value being parsed; returns the default the parse ends with.</summary>
    public static T? Add<T>(ArgumentResult result, string message)
    {
        s_ours.AddOrUpdate(message, message);
        result.AddError(message);
        return default;
    }

    /// <summary>The first error of <paramref name="result"/>, as the tool words it; <see langword="null"/> when there is none.</summary>
    public static string? FirstOf(ParseResult result, string commandName)
    {
        if (result.Errors.Count == 0)
        {
            return null;
        }

        string message = result.Errors[0].Message;
        return s_ours.TryGetValue(message, out _)
            ? message
            : $"the command line cannot be parsed (see 'cosmos-encryption {commandName} --help').";
    }

    /// <summary>A word that is plainly a mistyped name is echoed; anything else (possibly key material) is not.</summary>
    public static string EchoWord(string token)
    {
        if (token.Length > MaxWordLength)
        {
            return "(not printed)";
        }

        foreach (char c in token)
        {
            if (!char.IsAsciiLetter(c) && c != '-')
            {
                return "(not printed)";
            }
        }

        return token;
    }
}
