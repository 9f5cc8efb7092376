namespace Encryption.Custom.Migration;

/// <summary>A job's survey of the container and the changes its target would make to encrypted paths.</summary>
internal sealed class TargetCheck
{
    public TargetCheck(ContainerSurvey survey, IReadOnlyList<PathChange> changes)
    {
        Survey = survey;
        Changes = changes;
        Refused = [.. changes.Where(change => !change.Allowed)];
    }

    /// <summary>What the container held when the job looked.</summary>
    public ContainerSurvey Survey { get; }

    /// <summary>Each path whose encryption the target removes or changes, allowed or not.</summary>
    public IReadOnlyList<PathChange> Changes { get; }

    /// <summary>The changes the options do not allow: the job refuses to run while there are any.</summary>
    public IReadOnlyList<PathChange> Refused { get; }
}
