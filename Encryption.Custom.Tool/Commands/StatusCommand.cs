using System.Buffers;
using System.Text.Encodings.Web;
using System.Text.Json;
using Encryption.Custom.Tool.CommandLine;
using Encryption.Custom.Tool.Documents;
using Encryption.Custom.Tool.Endpoints;
using Encryption.Custom.Tool.Errors;
using Encryption.Custom.Tool.Migration;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Tool.Commands;

/// <summary>
/// <c>status</c>: the library's <see cref="EncryptionMigrationJob.GetStatusAsync"/>, printed as one line of JSON; with
/// <c>--target-container</c>, its <see cref="EncryptionMigrationJob.GetCopyStatusAsync"/> (a copy's), which needs the keys.
/// </summary>
internal static class StatusCommand
{
    private static readonly JsonWriterOptions s_writerOptions = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    /// <exception cref="Errors.ToolException">A bad path (exit code 2), an unreadable key file (3), an incomplete copy (5), an unwritable output (1).</exception>
    /// <exception cref="EncryptionException">A DEK cannot be read or unwrapped (copy mode).</exception>
    /// <exception cref="CosmosException">The service refused the query.</exception>
    public static async Task RunAsync(ToolArguments arguments, ToolConsole console, CancellationToken cancellationToken)
    {
        MigrationArguments migration = arguments.Migration!;
        ContainerEncryptionPolicy? policy = MigrationTargets.PolicyOf(migration);
        using CosmosClient client = AccountClient.Create(migration.Endpoint);
        await ResourceCheck.EnsureExistsAsync(client, migration.Database, "--database", migration.Container, "--container", cancellationToken).ConfigureAwait(false);
        Container container = client.GetContainer(migration.Database, migration.Container);
        var text = new ArrayBufferWriter<byte>(512);
        EncryptionCopyStatus? copy = null;
        if (migration.TargetContainer is { } targetName)
        {
            copy = await CopyStatusAsync(client, container, targetName, policy, migration, cancellationToken).ConfigureAwait(false);
            Write(copy, text);
        }
        else
        {
            Write(await EncryptionMigrationJob.GetStatusAsync(container, policy, cancellationToken).ConfigureAwait(false), text);
        }

        text.Write("\n"u8);
        await DocumentOutput.WriteAsync(null, console.Out, text.WrittenMemory, cancellationToken).ConfigureAwait(false);
        if (copy is { IsComplete: false })
        {
            // A script waiting for a copy to finish branches on the exit code; the counts are on standard output.
            throw ToolException.CopyIncomplete(
                FormattableString.Invariant($"the copy is not complete: {copy.DocumentsMissingFromTarget} missing from the target, {copy.DocumentsDifferentInTarget} different there, {copy.UnreadableSourceDocuments} unreadable in the source, {copy.Target.DocumentsOutsideTargetState} target document(s) outside the target state."));
        }
    }

    // As migrate --target-container reads them: the source with the DEK each document names (no source policy), the
    // target through the target policy; the DEKs are proven before anything is read.
    private static async Task<EncryptionCopyStatus> CopyStatusAsync(
        CosmosClient client, Container source, string targetName, ContainerEncryptionPolicy? policy, MigrationArguments migration, CancellationToken cancellationToken)
    {
        await ResourceCheck.EnsureExistsAsync(client, migration.Database, "--database", targetName, "--target-container", cancellationToken).ConfigureAwait(false);
        await ResourceCheck.EnsureExistsAsync(
            client, migration.DekDatabase ?? migration.Database, migration.DekDatabase is null ? "--database" : "--dek-database", migration.DekContainer!, "--dek-container", cancellationToken).ConfigureAwait(false);
        await using MigrationKeys keys = await MigrationKeys.OpenAsync(client, migration, cancellationToken).ConfigureAwait(false);
        Container target = client.GetContainer(migration.Database, targetName);
        return await EncryptionMigrationJob.GetCopyStatusAsync(source, sourcePolicy: null, target, policy, keys.Encryptor, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// Writes <c>{"sourceDocuments":…,"copied":…,"missing":…,"different":…,"unreadable":…,"onlyInTarget":…,"complete":…,
    /// "requestUnits":…,"target":{…}}</c>, where <c>target</c> is the target container's status as <see cref="Write(EncryptionMigrationStatus, IBufferWriter{byte})"/> writes it.
    /// </summary>
    internal static void Write(EncryptionCopyStatus status, IBufferWriter<byte> output)
    {
        using var writer = new Utf8JsonWriter(output, s_writerOptions);
        writer.WriteStartObject();
        writer.WriteNumber("sourceDocuments", status.SourceDocuments);
        writer.WriteNumber("copied", status.DocumentsCopied);
        writer.WriteNumber("missing", status.DocumentsMissingFromTarget);
        writer.WriteNumber("different", status.DocumentsDifferentInTarget);
        writer.WriteNumber("unreadable", status.UnreadableSourceDocuments);
        writer.WriteNumber("onlyInTarget", status.DocumentsOnlyInTarget);
        writer.WriteBoolean("complete", status.IsComplete);
        writer.WriteNumber("requestUnits", Math.Round(status.RequestUnits, 2));
        writer.WritePropertyName("target");
        WriteObject(status.Target, writer);
        writer.WriteEndObject();
    }

    /// <summary>
    /// Writes <c>{"documents":…,"inTargetState":…,"outsideTargetState":…,"byDekId":{…},"byFormat":{"3":…,"101":…},"unencrypted":…,
    /// "plaintext":…,"otherPaths":…,"staleQueryTokens":…,"unreadable":…,"requestUnits":…,"encryptionTypesChecked":…}</c>.
    /// </summary>
    internal static void Write(EncryptionMigrationStatus status, IBufferWriter<byte> output)
    {
        using var writer = new Utf8JsonWriter(output, s_writerOptions);
        WriteObject(status, writer);
    }

    private static void WriteObject(EncryptionMigrationStatus status, Utf8JsonWriter writer)
    {
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
