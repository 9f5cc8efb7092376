using System.Reflection;
using System.Text;
using Encryption.Custom.Tool.CommandLine;
using Encryption.Custom.Tool.Commands;
using Azure.Identity;
using Encryption.Custom.Tool.Errors;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tool;

/// <summary>
/// The tool's entry point behind <c>Main</c>, with the console injected: parses the command line, runs the
/// command, and turns every failure into its exit code and one line on standard error.
/// </summary>
internal static class ToolApplication
{
    /// <summary>Runs the tool.</summary>
    /// <param name="args">The command line, without the program name.</param>
    /// <param name="console">Where to read and write.</param>
    /// <param name="cancellationToken">Stops a run in progress (its output is not written).</param>
    /// <returns>The exit code (see <see cref="ExitCodes"/>).</returns>
    public static async Task<int> RunAsync(IReadOnlyList<string> args, ToolConsole console, CancellationToken cancellationToken = default)
    {
        try
        {
            ToolArguments arguments = CommandLineParser.Parse(args);
            switch (arguments.Action)
            {
                case ToolAction.ShowHelp:
                    await WriteTextAsync(console, arguments.Command is null ? HelpText.ForTool() : HelpText.For(arguments.Command), cancellationToken);
                    break;
                case ToolAction.ShowVersion:
                    await WriteTextAsync(console, Version + "\n", cancellationToken);
                    break;
                default:
                    await RunCommandAsync(arguments, console, cancellationToken);
                    break;
            }

            return ExitCodes.Success;
        }
        catch (ToolException exception)
        {
            return Fail(console, ErrorLine.For(exception), exception.ExitCode);
        }
        catch (EncryptionException exception)
        {
            return Fail(console, ErrorLine.For(exception), ExitCodes.BadInput);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            return Fail(console, ErrorLine.Prefix + "Cancelled: the run was cancelled; nothing was written.", ExitCodes.Failure);
        }
        catch (CosmosException exception)
        {
            // The status code says what went wrong (401 key, 404 database or container, 429...); the SDK's message is
            // not printed: it carries request diagnostics, not what the operator needs, and could grow to quote more.
            return Fail(console, ErrorLine.ForService($"the service answered {(int)exception.StatusCode} {exception.StatusCode}."), ExitCodes.Failure);
        }
        catch (Exception exception) when (exception is HttpRequestException or AuthenticationFailedException or CredentialUnavailableException)
        {
            return Fail(console, ErrorLine.ForService($"the endpoint cannot be reached or signed in to ({exception.GetType().Name})."), ExitCodes.Failure);
        }
#pragma warning disable CA1031 // The last resort: a failure must still be one line and an exit code, never a stack trace quoting data.
        catch (Exception exception)
#pragma warning restore CA1031
        {
            return Fail(console, ErrorLine.ForUnexpected(exception), ExitCodes.Failure);
        }
    }

    /// <summary>The tool's version, as <c>--version</c> prints it.</summary>
    internal static string Version =>
        typeof(ToolApplication).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion
        ?? typeof(ToolApplication).Assembly.GetName().Version?.ToString()
        ?? "unknown";

    private static Task RunCommandAsync(ToolArguments arguments, ToolConsole console, CancellationToken cancellationToken) => arguments.Command!.Kind switch
    {
        CommandKind.Encrypt => EncryptCommand.RunAsync(arguments, console, cancellationToken),
        CommandKind.Decrypt => DecryptCommand.RunAsync(arguments, console, cancellationToken),
        CommandKind.Migrate => MigrateCommand.RunAsync(arguments, console, cancellationToken),
        CommandKind.Status => StatusCommand.RunAsync(arguments, console, cancellationToken),
        CommandKind.CreateDek => CreateDekCommand.RunAsync(arguments, console, cancellationToken),
        CommandKind.ListDeks => ListDeksCommand.RunAsync(arguments, console, cancellationToken),
        CommandKind.RewrapDek => RewrapDekCommand.RunAsync(arguments, console, cancellationToken),
        _ => InspectCommand.RunAsync(arguments, console, cancellationToken),
    };

    private static async Task WriteTextAsync(ToolConsole console, string text, CancellationToken cancellationToken)
    {
        await console.Out.WriteAsync(Encoding.UTF8.GetBytes(text), cancellationToken);
        await console.Out.FlushAsync(cancellationToken);
    }

    private static int Fail(ToolConsole console, string line, int exitCode)
    {
        console.Error.WriteLine(line);
        console.Error.Flush();
        return exitCode;
    }
}
