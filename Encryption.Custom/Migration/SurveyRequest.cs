using Encryption.Custom.Json.Inspection;
using Microsoft.Azure.Cosmos;

namespace Encryption.Custom.Migration;

/// <summary>
/// What a <see cref="ContainerSurvey"/> reads and how it judges it: the container, the reader its documents go through
/// (the chosen processor's inspector and depth limit), the keys it checks encryption types with, and the target whose
/// paths it counts. One value, so the survey's entry point says what is surveyed apart from how it is paced (the
/// budget, the clock) and cancelled.
/// </summary>
/// <param name="Container">The raw container.</param>
/// <param name="Inspector">The chosen processor's inspector (<see cref="EncryptionMigrationOptions.JsonProcessor"/>).</param>
/// <param name="MaxDepth">The deepest nesting accepted.</param>
/// <param name="Encryptor">The keys to check encryption types with, or <see langword="null"/> to leave them unknown.</param>
/// <param name="KeyIds">The DEKs whose documents' encryption types are checked (those the migration may read).</param>
/// <param name="Target">The migration's target, whose paths <see cref="ContainerSurvey.DocumentsWithValues"/> counts; <see langword="null"/> for none.</param>
internal sealed record SurveyRequest(
    Container Container,
    DocumentInspector Inspector,
    int MaxDepth,
    Encryptor? Encryptor,
    IReadOnlyCollection<string> KeyIds,
    ContainerEncryptionPolicy? Target = null)
{
    /// <summary>The part of the container surveyed (one of its feed ranges, <see cref="SharedRangeScan"/>), or <see langword="null"/> for all of it.</summary>
    public FeedRange? Range { get; init; }
}
