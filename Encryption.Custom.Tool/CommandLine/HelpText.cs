using System.CommandLine;
using System.Text;

namespace Encryption.Custom.Tool.CommandLine;

/// <summary>
/// The text of <c>--help</c>, for the tool and for each command, built from the commands' own option definitions.
/// Written here rather than by System.CommandLine's help builder: the usage line lists every option (scripts and
/// docs copy it), and the key-file warning and the exit codes belong on the same page.
/// </summary>
internal static class HelpText
{
    private const int OptionColumn = 34;

    private const string KeyFiles =
        """
        Key files (--key-file):
          A key file holds one raw 32-byte data encryption key (DEK) as exactly 64 hexadecimal characters,
          optionally surrounded by whitespace or a final newline; anything else is rejected. The tool reads it
          into memory it wipes after use and keeps the key in protected memory, but the file itself is an
          unwrapped key on disk: use key files for development and support only, keep them readable by you
          alone, and delete them when done. Production keys stay wrapped by a key-encryption key.
        """;

    private const string ExitCodes =
        """
        Exit codes:
          0  success (migrate: every document is in the target state)
          1  the output could not be written, the service refused a request or cannot be reached, cancelled
             (migrate: run it again to resume), or an unexpected failure
          2  usage error: unknown command or option, missing required option, bad value or path syntax
          3  bad input: malformed JSON, wrong key, tampered value, unsupported format, unreadable input, bad key file
          4  migrate finished, but some documents could not be migrated: they are listed and were left as they were

        A failure writes exactly one line to standard error (the error kind, the DEK id and path when known, and
        the message; never key material, plaintext or ciphertext) and leaves --out untouched.
        """;

    /// <summary>The tool's help.</summary>
    public static string ForTool()
    {
        var text = new StringBuilder();
        text.AppendLine("cosmos-encryption: inspect, encrypt and decrypt Azure Cosmos DB documents in the Encryption.Custom")
            .AppendLine("format (format 3; format 2 is decrypted too), offline; migrate a container's documents in place; create,")
            .AppendLine("list and rewrap the data encryption keys of a DEK container.")
            .AppendLine()
            .AppendLine("Usage:")
            .AppendLine("  cosmos-encryption <command> [options]")
            .AppendLine("  cosmos-encryption <command> --help")
            .AppendLine("  cosmos-encryption --help | --version")
            .AppendLine()
            .AppendLine("Commands:");
        foreach (ToolCommand command in ToolCommandLine.All)
        {
            text.Append("  ").Append(command.Name.PadRight(12)).AppendLine(command.Summary);
        }

        text.AppendLine()
            .AppendLine("Documents are read from --in or standard input and written to --out or standard output.")
            .AppendLine()
            .AppendLine(KeyFiles)
            .AppendLine()
            .AppendLine(ExitCodes);
        return text.ToString();
    }

    /// <summary>The help of one command.</summary>
    public static string For(ToolCommand command)
    {
        var text = new StringBuilder();
        text.Append("Usage: cosmos-encryption ").Append(command.Name);
        foreach (Option option in command.Options)
        {
            string usage = Label(option);
            text.Append(' ').Append(option.Required ? usage : $"[{usage}]");
            if (ToolCommand.IsRepeatable(option))
            {
                text.Append(" [").Append(usage).Append(" ...]");
            }
        }

        text.AppendLine().AppendLine();
        Wrap(text, command.Description ?? string.Empty, string.Empty);
        text.AppendLine().AppendLine("Options:");
        foreach (Option option in command.Options)
        {
            string label = "  " + Label(option);
            text.Append(label.PadRight(OptionColumn));
            if (label.Length >= OptionColumn)
            {
                text.AppendLine().Append(new string(' ', OptionColumn));
            }

            Wrap(text, (option.Required ? "Required. " : string.Empty) + option.Description, new string(' ', OptionColumn), firstLineIndented: true);
        }

        text.AppendLine("  -h, --help".PadRight(OptionColumn) + "Show this help.");
        if (command.FindOption("--key-file") is not null)
        {
            text.AppendLine().AppendLine(KeyFiles);
        }

        text.AppendLine().AppendLine(ExitCodesOf(command));
        return text.ToString();
    }

    // A command's page lists only the exit codes it can end with, in its own words.
    private static string ExitCodesOf(ToolCommand command)
    {
        var text = new StringBuilder("Exit codes:\n  0  success");
        text.Append(command.Kind switch
        {
            CommandKind.Migrate => " (every document is in the target state; --dry-run: the run would go ahead)\n"
                + "  1  stopped (Ctrl+C, SIGTERM: run the same command again to resume), the service refused a request or\n"
                + "     cannot be reached, or an unexpected failure\n"
                + "  2  usage error, or a change not allowed: the run would decrypt a path or change its encryption type\n"
                + "     without --decrypt-path or --change-type-path naming it (nothing was written)\n"
                + "  3  a DEK or the key-encryption key file cannot be read, or a DEK cannot be unwrapped (nothing was written)\n"
                + "  4  finished, but some documents could not be migrated: they are listed and were left as they were\n",
            CommandKind.Status => " (with --target-container: the copy is complete)\n"
                + "  1  the service refused the query (404: the database or container named does not exist) or cannot be\n"
                + "     reached, or an unexpected failure\n"
                + "  2  usage error: unknown option, missing required option, bad value or path syntax\n"
                + "  3  with --target-container: a DEK or the key-encryption key file cannot be read, or a DEK cannot be unwrapped\n"
                + "  5  with --target-container: the copy is not complete (documents missing, different, unreadable, or\n"
                + "     outside the target state; the counts are printed)\n",
            CommandKind.CreateDek or CommandKind.RewrapDek => "\n"
                + "  1  the service refused a request (AlreadyExists: create-dek found a DEK with that id; NotFound: the\n"
                + "     database or DEK container named does not exist) or cannot be reached, or an unexpected failure\n"
                + "  2  usage error: unknown option, missing required option, bad value, unknown wrap algorithm\n"
                + "  3  the key-encryption key file cannot be read, the DEK cannot be read or unwrapped, or wrapping failed\n"
                + "     or did not verify (nothing was written)\n",
            CommandKind.ListDeks => "\n"
                + "  1  the service refused the query (NotFound: the database or DEK container named does not exist) or\n"
                + "     cannot be reached, or an unexpected failure\n"
                + "  2  usage error: unknown option, missing required option, bad value\n"
                + "  3  a document of the DEK container is not a DEK document\n",
            _ => "\n"
                + "  1  the output could not be written, or an unexpected failure\n"
                + "  2  usage error: unknown option, missing required option, bad value or path syntax\n"
                + "  3  bad input: malformed JSON, wrong key, tampered value, unsupported format, unreadable input, bad key file\n",
        });
        text.Append("\nA failure writes exactly one line to standard error (the error kind, the DEK id and path when known, and\n")
            .Append("the message; never key material, plaintext or ciphertext)")
            .Append(command.FindOption("--out") is not null ? " and leaves --out untouched.\n" : ".\n");
        return text.ToString();
    }

    // A flag (--bulk) has no value.
    private static string Label(Option option) => option.HelpName is null ? option.Name : $"{option.Name} {option.HelpName}";

    // Wraps at 110 columns; continuation lines start with indent.
    private static void Wrap(StringBuilder text, string paragraph, string indent, bool firstLineIndented = false)
    {
        const int Width = 110;
        int column = firstLineIndented ? indent.Length : 0;
        bool lineStart = true;
        foreach (string word in paragraph.Split(' ', StringSplitOptions.RemoveEmptyEntries))
        {
            if (!lineStart && column + 1 + word.Length > Width)
            {
                text.AppendLine().Append(indent);
                column = indent.Length;
                lineStart = true;
            }

            if (!lineStart)
            {
                text.Append(' ');
                column++;
            }

            text.Append(word);
            column += word.Length;
            lineStart = false;
        }

        text.AppendLine();
    }
}
