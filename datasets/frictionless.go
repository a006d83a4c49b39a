package datasets

// FrictionlessField is one field of a Frictionless Table Schema
// (https://specs.frictionlessdata.io/table-schema/).
type FrictionlessField struct {
	Name        string                   `json:"name"`
	Type        string                   `json:"type"`
	Format      string                   `json:"format,omitempty"`
	Description string                   `json:"description"`
	Constraints *FrictionlessConstraints `json:"constraints,omitempty"`
}

// FrictionlessConstraints holds the field constraints svc declares.
type FrictionlessConstraints struct {
	Required bool `json:"required"`
}

// FrictionlessSchema is the Table Schema of one table's CSV file. The empty
// field is the only missing value, which is how WriteCSV writes null.
type FrictionlessSchema struct {
	Fields        []FrictionlessField `json:"fields"`
	PrimaryKey    []string            `json:"primaryKey"`
	MissingValues []string            `json:"missingValues"`
}

// FrictionlessSchema returns t as a Frictionless Table Schema. JSON columns
// are strings holding JSON text (their descriptions say so); timestamps are
// datetimes in the "any" format because they carry microseconds.
func (t *Table) FrictionlessSchema() FrictionlessSchema {
	s := FrictionlessSchema{
		Fields:        make([]FrictionlessField, len(t.Columns)),
		PrimaryKey:    append([]string(nil), t.Key...),
		MissingValues: []string{""},
	}
	for i, c := range t.Columns {
		f := FrictionlessField{Name: c.Name, Description: c.Description}
		switch c.Type {
		case String:
			f.Type = "string"
		case JSON:
			f.Type = "string"
			f.Description = "JSON text. " + c.Description
		case Bool:
			f.Type = "boolean"
		case Int64:
			f.Type = "integer"
		case Float64:
			f.Type = "number"
		case Timestamp:
			f.Type, f.Format = "datetime", "any"
		case Date:
			f.Type = "date"
		}
		if !c.Nullable {
			f.Constraints = &FrictionlessConstraints{Required: true}
		}
		s.Fields[i] = f
	}
	return s
}
