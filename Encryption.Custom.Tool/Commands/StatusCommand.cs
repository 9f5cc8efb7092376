using System.Buffers;
using System.Text.Encodings.Web;
using System.Text.Json;
using Encryption.Custom.Tool.CommandLine;
using Encryption.Custom.Tool.Documents;
using Encryption.Custom.Tool.Endpoints;
using Encryption.Custom.Tool.Migration;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tool.Commands;

/// <summary><c>status</c>: the library's <see cref="EncryptionMigrationJob.GetStatusAsync"/>, printed as one line of JSON.</summary>
internal static class StatusCommand
{
    private static readonly JsonWriterOptions s_writerOptions = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    /// <exception cref="Errors.ToolException">A bad path (exit code 2), an unwritable output (1).</exception>
    /// <exception cref="CosmosException">The service refused the query.</exception>
    public static async Task RunAsync(ToolArguments arguments, ToolConsole console, CancellationToken cancellationToken)
    {
        MigrationArguments migration = arguments.Migration!;
        ContainerEncryptionPolicy? policy = MigrationTargets.PolicyOf(migration);
        using CosmosClient client = AccountClient.Create(migration.Endpoint);
        await ResourceCheck.EnsureExistsAsync(client, migration.Database, "--database", migration.Container, "--container", cancellationToken).ConfigureAwait(false);
        Container container = client.GetContainer(migration.Database, migration.Container);
        EncryptionMigrationStatus status = await EncryptionMigrationJob.GetStatusAsync(container, policy, cancellationToken).ConfigureAwait(false);

        var text = new ArrayBufferWriter<byte>(512);
        Write(status, text);
        text.Write("\n"u8);
        await DocumentOutput.WriteAsync(null, console.Out, text.WrittenMemory, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// Writes <c>{"documents":…,"inTargetState":…,"outsideTargetState":…,"byDekId":{…},"byFormat":{"3":…,"101":…},"unencrypted":…,
    /// "plaintext":…,"otherPaths":…,"staleQueryTokens":…,"unreadable":…,"requestUnits":…,"encryptionTypesChecked":…}</c>.
    /// </summary>
    internal static void Write(EncryptionMigrationStatus status, IBufferWriter<byte> output)
    {
        using var writer = new Utf8JsonWriter(output, s_writerOptions);
        writer.WriteStartObject();
        writer.WriteNumber("documents", status.TotalDocuments);
        writer.WriteNumber("inTargetState", status.DocumentsInTargetState);
        writer.WriteNumber("outsideTargetState", status.DocumentsOutsideTargetState);
        writer.WriteStartObject("byDekId");
        foreach (KeyValuePair<string, long> entry in status.DocumentsByDataEncryptionKeyId.OrderBy(e => e.Key, StringComparer.Ordinal))
        {
            writer.WriteNumber(entry.Key, entry.Value);
        }

        writer.WriteEndObject();
        writer.WriteStartObject("byFormat");
        foreach (KeyValuePair<int, long> entry in status.DocumentsByFormatVersion.OrderBy(e => e.Key))
        {
            writer.WriteNumber(entry.Key.ToString(System.Globalization.CultureInfo.InvariantCulture), entry.Value);
        }

        writer.WriteEndObject();
        writer.WriteNumber("unencrypted", status.UnencryptedDocuments);
        writer.WriteNumber("plaintext", status.PlaintextDocuments);
        writer.WriteNumber("otherPaths", status.DocumentsWithOtherPaths);
        writer.WriteNumber("staleQueryTokens", status.DocumentsWithStaleQueryTokens);
        writer.WriteNumber("unreadable", status.UnreadableDocuments);
        writer.WriteNumber("requestUnits", Math.Round(status.RequestUnits, 2));
        writer.WriteBoolean("encryptionTypesChecked", status.EncryptionTypesChecked);
        writer.WriteEndObject();
    }
}
